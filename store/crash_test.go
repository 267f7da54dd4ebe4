package store

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/crashtest"
)

// crashBatch is batch i of the crash test's child: five edges whose names
// and weights say which batch wrote them.
func crashBatch(i int) []Op {
	ops := make([]Op, 5)
	for j := range ops {
		ops[j] = as("child", Edge(fmt.Sprintf("c%d-%d", i, j), "hub", float64(5*i+j+1)))
	}
	return ops
}

// The crash test: a child process writes batches to a durable store,
// compacting in the background now and then, and prints each acknowledged
// batch; the parent kills it with SIGKILL mid-stream, recovers the store and
// checks that every acknowledged batch is there, whole, once, in order.
func TestAcknowledgedBatchesSurviveKill9(t *testing.T) {
	if os.Getenv("STORE_CRASH_CHILD") != "" {
		return // the child's work happens in TestMain
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	dir := t.TempDir()
	acked := crashtest.KillAfterAcks(t, "TestAcknowledgedBatchesSurviveKill9", "STORE_CRASH_CHILD", dir, 200)

	s, err := Open(dir, Options{})
	require.NoError(t, err)
	v := s.Current()
	m := v.NumEdges()
	require.Zero(t, m%5, "a batch was recovered in part (%d edges)", m)
	require.GreaterOrEqual(t, m/5, acked+1, "acknowledged %d batches, recovered %d", acked+1, m/5)
	for e := range uint32(m) {
		i, j := int(e)/5, int(e)%5
		info := v.Edge(e)
		require.Equal(t, fmt.Sprintf("c%d-%d", i, j), v.Name(info.Src), "edge %d", e)
		require.Equal(t, float64(5*i+j+1), info.Weight, "edge %d", e)
	}
	t.Logf("child acknowledged %d batches before SIGKILL; recovered %d", acked+1, m/5)
}

func TestMain(m *testing.M) {
	if dir := os.Getenv("STORE_CRASH_CHILD"); dir != "" {
		s, err := Open(dir, Options{Directed: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for i := 0; ; i++ {
			if _, err := s.applyBatch(crashBatch(i)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fmt.Println(i) // acknowledged: Apply returned after the fsync
			if i%25 == 10 {
				go s.Compact()
			}
		}
	}
	os.Exit(m.Run())
}
