package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/require"
)

// loggingWriter is the writer of a middleware mounted between the two: it
// unwraps, as http.ResponseController expects.
type loggingWriter struct{ http.ResponseWriter }

func (l loggingWriter) Unwrap() http.ResponseWriter { return l.ResponseWriter }

// TestAttackConcurrencyMountedTwiceTakesOneSlot: a limiter mounted twice on
// one request's path (a global Concurrency and a route's of the same
// limiter, or one Concurrency twice) takes one slot of a key per request,
// not one per mount. Before, every request took two: a limit of 2 admitted
// 1 request in flight, and a limit of 1 refused every request, 429 to all.
// Another key, or another limiter, still takes its own slot.
func TestAttackConcurrencyMountedTwiceTakesOneSlot(t *testing.T) {
	for name, between := range map[string]func(http.Handler) http.Handler{
		"directly": func(h http.Handler) http.Handler { return h },
		"through a writer that unwraps": func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(loggingWriter{w}, r) })
		},
	} {
		t.Run(name, func(t *testing.T) {
			m := memSlots(t, 2)
			outer, err := middleware.NewConcurrency(m, middleware.ConcurrencyOptions{Key: constKey})
			require.NoError(t, err)
			route, err := middleware.NewConcurrency(m, middleware.ConcurrencyOptions{Key: constKey})
			require.NoError(t, err)
			entered, leave := make(chan int, 3), make(chan struct{})
			handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				entered <- m.InFlight("k")
				<-leave
				w.WriteHeader(http.StatusNoContent)
			})
			for _, h := range []http.Handler{
				outer.Handler(between(route.Handler(handler))), // a global mount and a route's
				outer.Handler(between(outer.Handler(handler))), // one Concurrency twice
			} {
				codes := make(chan int, 2)
				for i := range 2 {
					go func() {
						w := httptest.NewRecorder()
						h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
						codes <- w.Code
					}()
					select {
					case n := <-entered:
						require.Equal(t, i+1, n, "request %d in flight holds one slot", i+1)
					case code := <-codes:
						require.Failf(t, "refused", "request %d: %d", i+1, code)
					}
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
				require.Equal(t, http.StatusTooManyRequests, w.Code, "a third is refused")
				leave <- struct{}{}
				leave <- struct{}{}
				require.Equal(t, http.StatusNoContent, <-codes)
				require.Equal(t, http.StatusNoContent, <-codes)
				require.Equal(t, 0, m.InFlight("k"))
			}

			// Another key of the same limiter takes a slot of its own.
			other, err := middleware.NewConcurrency(m, middleware.ConcurrencyOptions{Key: func(*http.Request) (string, error) { return "j", nil }})
			require.NoError(t, err)
			h := outer.Handler(between(other.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				require.Equal(t, 1, m.InFlight("k"))
				require.Equal(t, 1, m.InFlight("j"))
			}))))
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
			// Another limiter of the key too.
			m1 := memSlots(t, 1)
			h = outer.Handler(between(concurrency(t, m1, middleware.ConcurrencyOptions{Key: constKey}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				require.Equal(t, 1, m.InFlight("k"))
				require.Equal(t, 1, m1.InFlight("k"))
				w.WriteHeader(http.StatusNoContent)
			}))))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			require.Equal(t, http.StatusNoContent, w.Code)
			require.Equal(t, 0, m.InFlight("k")+m.InFlight("j")+m1.InFlight("k"))
		})
	}
}

// TestConcurrencyBeginUnderItsOwnHandlerTakesNoSecondSlot: Begin (gin's or
// echo's use) under a Handler of the same limiter and key reuses its slot
// too.
func TestConcurrencyBeginUnderItsOwnHandlerTakesNoSecondSlot(t *testing.T) {
	m := memSlots(t, 1)
	c, err := middleware.NewConcurrency(m, middleware.ConcurrencyOptions{Key: constKey})
	require.NoError(t, err)
	h := c.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, ok := c.Begin(w, r)
		require.True(t, ok)
		defer release()
		require.Equal(t, 1, m.InFlight("k"))
		w.WriteHeader(http.StatusNoContent)
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	require.Equal(t, http.StatusNoContent, w.Code)
	require.Equal(t, 0, m.InFlight("k"))
}
