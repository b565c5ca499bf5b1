package circuit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackBreakerFlap: a flaky link (a middlebox resetting connections)
// breaks a connection right after every closing of the breaker, while a
// round trip sent before the break is answered late. A late answer to a
// round trip sent before the opening must not close the breaker (it did:
// 2 switches, 2 log lines and a mode change per break, 20,000 here with
// no time passing), and a breaker that reopens soon after closing waits
// longer each time, up to ProbeMax: over 10 s at most about one switch
// each way per ProbeMax/2.
func TestAttackBreakerFlap(t *testing.T) {
	const probeMax = 800 * time.Millisecond
	b, now, events := fakeBreaker(3, 100*time.Millisecond, probeMax, 0.5)
	start := *now
	for round := 0; round < 10000 && now.Sub(start) < 10*time.Second; round++ {
		sent := b.Epoch() // a round trip goes out
		b.Fault(errRefused, false)
		b.Answered(sent) // and is answered, late
		if ok, _ := b.Allow(); ok {
			continue // closed by the late answer: flapping
		}
		var trial bool
		for ok := false; !ok; ok, trial = b.Allow() {
			*now = now.Add(time.Millisecond)
		}
		require.True(t, trial)
		b.Answered(b.Epoch()) // the trial's round trip closes it
	}
	limit := 2 * int(10*time.Second/(probeMax/2)) // one opening and one closing per ProbeMax/2
	assert.LessOrEqual(t, len(*events), limit, "switches in 10 s of a flaky link")
}
