package live

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A write event's payload carries its ops and no channel; read back for a
// channel it is the event's batch as that channel. A payload that names a
// channel, or is malformed, is refused.
func TestPayloadRoundTrip(t *testing.T) {
	line := []byte(`{"write": {"channel": "peer", "ops": [{"op": "edge", "src": "a", "dst": "b", "weight": 2}, {"op": "merge", "from": "a", "into": "c"}]}}`)
	ev, err := Parse(line, 1)
	require.NoError(t, err)
	p, err := Payload(line)
	require.NoError(t, err)
	require.NotContains(t, string(p), "peer")
	w, err := ParsePayload(p, "peer")
	require.NoError(t, err)
	require.Equal(t, ev.Write, w)
	w, err = ParsePayload(p, "other")
	require.NoError(t, err)
	require.Equal(t, "other", w.Channel)

	_, err = ParsePayload([]byte(`{"channel": "default", "ops": [{"op": "edge", "src": "a", "dst": "b"}]}`), "peer")
	require.ErrorContains(t, err, `names a "channel"`)
	_, err = ParsePayload([]byte(`{"ops": []}`), "peer")
	require.ErrorContains(t, err, `"ops" is required`)
	_, err = ParsePayload([]byte(`{"ops": [{"op": "edge"}]} {}`), "peer")
	require.Error(t, err)
	_, err = Payload([]byte(`{"query": {"id": "q"}}`))
	require.ErrorContains(t, err, "not a write event")
}
