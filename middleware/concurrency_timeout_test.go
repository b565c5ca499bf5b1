package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/require"
)

// TestConcurrencyAndTimeoutHandler: http.TimeoutHandler answers at its
// timeout and returns while its handler runs on. A Concurrency mounted
// around it (c.Handler(http.TimeoutHandler(h, …))) gives the slot back at
// that answer, with h still running: at a limit of 1, two requests run h
// at once (the configuration fails open for slow requests). Mounted
// inside it (http.TimeoutHandler(c.Handler(h), …)), as the documentation
// says, the slot is held until h returns: the second request is refused
// while the first still runs. The timeout runs on synctest's clock.
func TestConcurrencyAndTimeoutHandler(t *testing.T) {
	for _, inside := range []bool{false, true} {
		name := map[bool]string{false: "around", true: "inside"}[inside]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var running, most atomic.Int64
				release := make(chan struct{})
				h := http.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					n := running.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					<-release // slow work
					running.Add(-1)
				}))
				c, err := middleware.NewConcurrency(memSlots(t, 1), middleware.ConcurrencyOptions{
					Key: func(*http.Request) (string, error) { return "k", nil }})
				require.NoError(t, err)
				var chain http.Handler
				if inside {
					chain = http.TimeoutHandler(c.Handler(h), time.Second, "timeout")
				} else {
					chain = c.Handler(http.TimeoutHandler(h, time.Second, "timeout"))
				}
				var wg sync.WaitGroup
				codes := make([]int, 2)
				for i := range codes {
					wg.Go(func() {
						w := httptest.NewRecorder()
						chain.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
						codes[i] = w.Code
					})
					// The request has timed out (503) and its answer has
					// returned; h still runs.
					synctest.Wait()
					time.Sleep(2 * time.Second)
					synctest.Wait()
				}
				close(release)
				wg.Wait()
				if inside {
					require.Equal(t, int64(1), most.Load(), "at most 1 in flight")
					require.Equal(t, []int{http.StatusServiceUnavailable, http.StatusTooManyRequests}, codes)
				} else {
					require.Equal(t, int64(2), most.Load(), "around TimeoutHandler, the limit does not hold")
				}
			})
		})
	}
}
