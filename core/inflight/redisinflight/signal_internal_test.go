package redisinflight

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfirmationReadiesItsOwnListen: a key's head that leaves within a
// round trip of its SUBSCRIBE, and the next head listening at once, send
// SUBSCRIBE, UNSUBSCRIBE, SUBSCRIBE: the first confirmation is the first
// head's, and must not ready the second, which is not subscribed again
// until the third. A confirmation none asked for (go-redis subscribing
// a new connection again) readies the channel's listen.
func TestConfirmationReadiesItsOwnListen(t *testing.T) {
	t.Parallel()
	const ch = "c"
	first := &listen{channel: ch, ready: make(chan struct{})}
	second := &listen{channel: ch, ready: make(chan struct{})}
	s := &signals{subs: map[string]*listen{ch: second},
		sent: []subOp{{ch, true, first}, {ch, false, nil}, {ch, true, second}}}
	s.confirmed(ch, true)
	require.False(t, second.confirmed, "the first head's confirmation")
	s.confirmed(ch, false)
	require.False(t, second.confirmed)
	s.confirmed(ch, true)
	require.True(t, second.confirmed, "its own")
	require.Empty(t, s.sent)

	again := &listen{channel: ch, ready: make(chan struct{})}
	s.subs[ch] = again
	s.confirmed(ch, true)
	require.True(t, again.confirmed, "subscribed again on a new connection")
}
