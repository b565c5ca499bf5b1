package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/require"
)

// TestAttackHijackedConnectionDroppedUnclosed: a handler that takes the
// connection over and drops it without closing it (an application's bug:
// the runtime closes such a connection's descriptor when it is
// collected) held its slot for ever, since only Close gave it back: a
// request that reaches that path once per slot locked the key out for
// the life of the process (with a Redis limiter, whose held slots are
// renewed, across the fleet). Now the slot comes back when the
// connection is collected unclosed.
func TestAttackHijackedConnectionDroppedUnclosed(t *testing.T) {
	m := memSlots(t, 1)
	h := concurrency(t, m, middleware.ConcurrencyOptions{Key: constKey}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _, err := http.NewResponseController(w).Hijack()
		require.NoError(t, err) // (and the connection is dropped)
	}))
	h.ServeHTTP(newHijackable(t), httptest.NewRequest(http.MethodGet, "/ws", nil))
	// The collector runs the cleanup on a goroutine of its own: collect
	// until it has (a bounded number of times; it takes one or two).
	for i := 0; i < 1000 && m.InFlight("k") != 0; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	require.Equal(t, 0, m.InFlight("k"), "the connection dropped unclosed gave its slot back")
}
