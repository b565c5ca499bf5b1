package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
)

// Deployed behind a proxy (at 10.0.0.7, appending the client's address to
// X-Forwarded-For), one guesser's failures lock nobody else out of the
// login once the proxy's network is named. With no way to name it, every
// user was counted on the proxy's network: 101 failures of one guesser on
// made-up usernames made bob's first login, from another client, 429.
func TestAttackBehindAProxyOneGuesserLocksOutNobody(t *testing.T) {
	t.Parallel()
	opts := options([]string{"10.0.0.0/8"})
	opts.Clock = coretest.NewClock(time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC))
	h := newServer(opts)
	post := func(xff, user string) int {
		return attemptVia(h, "10.0.0.7:41000", xff, user, "guess").Code
	}
	for i := range 101 {
		post("198.51.100.1", fmt.Sprint("user", i))
	}
	assert.Equal(t, http.StatusTooManyRequests, post("203.0.113.9, 198.51.100.1", "user-next"), "the guesser, whatever it writes")
	assert.Equal(t, http.StatusUnauthorized, post("192.0.2.44", "bob"), "bob's attempt reaches the password check")
}
