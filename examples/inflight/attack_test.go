package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One client sending each request with a new X-Client value holds no more
// than its slots. The example keyed its limit by that header, raw, as
// README warns against: 8 parallel requests of one address, each naming
// another client, held 8 slots at once against a limit of 3; now 3, the
// other 5 refused.
func TestAttackRotatingClientHeaderHoldsNoMoreSlots(t *testing.T) {
	t.Parallel()
	lim, err := inflight.NewMemory(slots, inflight.MemoryOptions{})
	require.NoError(t, err)
	c, err := concurrency(lim, 0)
	require.NoError(t, err)
	const n = 8
	entered, release := make(chan struct{}, n), make(chan struct{})
	h := c.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		entered <- struct{}{}
		<-release
	}))
	codes := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := httptest.NewRequest(http.MethodGet, "/report", nil)
			r.Header.Set("X-Client", fmt.Sprint("made-up-", i))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			codes <- w.Code
		})
	}
	in, refused := 0, 0
	for in+refused < n { // every request let in or answered, the slots all held
		select {
		case <-entered:
			in++
		case code := <-codes:
			assert.Equal(t, http.StatusTooManyRequests, code)
			refused++
		}
	}
	close(release)
	wg.Wait()
	assert.Equal(t, slots, in, "requests in flight at once")
}
