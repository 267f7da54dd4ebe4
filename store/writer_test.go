package store

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// as returns op written by channel: the tests build batches of several
// writers' ops and apply them together (applyBatch), which a Writer never
// does.
func as(channel string, op Op) Op {
	op.channel = channel
	return op
}

// A writer writes as its channel only: the ops carry none, the edge is
// labelled with the writer's, and an empty channel gets no writer.
func TestWriterBindsItsChannel(t *testing.T) {
	t.Parallel()
	s, err := New(nil, nil, Options{})
	require.NoError(t, err)
	_, err = s.Writer("")
	require.ErrorIs(t, err, ErrNoChannel)
	w, err := s.Writer("agent-7")
	require.NoError(t, err)
	require.Equal(t, "agent-7", w.channel)
	res, err := w.Apply(Edge("a", "b", 1), Node("c"))
	require.NoError(t, err)
	require.Equal(t, []string{"agent-7"}, res.Version.Edge(res.IDs[0]).AddedBy)
	other, err := s.Writer("agent-8")
	require.NoError(t, err)
	res, err = other.Apply(Delete(res.IDs[0]))
	require.NoError(t, err)
	require.Equal(t, []string{"agent-8"}, res.Version.Edge(0).DeletedBy)
	// Ops built outside a writer carry no channel and are refused.
	_, err = s.applyBatch([]Op{Edge("x", "y", 1)})
	require.ErrorContains(t, err, "no channel")
}
