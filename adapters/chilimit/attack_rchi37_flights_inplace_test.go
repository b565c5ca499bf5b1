package chilimit_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// batchInPlace returns a router limited with lim in its Use whose
// "/api/*" handler wraps, at its first request, a handler with lim, and
// serves each of a batch's items with it, the request changed in place
// for each by change (a batch endpoint); hits counts the items served.
func batchInPlace(lim func(http.Handler) http.Handler, change func(*http.Request, int), hits *int) http.Handler {
	var (
		once sync.Once
		item http.Handler
	)
	r := chi.NewRouter()
	r.Use(lim)
	r.HandleFunc("/api/*", func(w http.ResponseWriter, req *http.Request) {
		once.Do(func() {
			item = lim(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { *hits++ }))
		})
		for i := range 3 {
			change(req, i)
			item.ServeHTTP(w, req)
		}
	})
	return r
}

// A request a Middleware's only use decided, changed in place (its URL,
// its method, its host) and served through a use wrapped meanwhile, is
// another request to that use, as it is to a use wrapped before (see
// decision: "a request changed in any field a key or cost can read, in
// place or not, is decided again"): the flights took it for the one
// decided by its pattern and charge alone. Each batch of 3 items is
// charged 4 times (the batch, and each item) from the second on; the
// first, decided before the item handler was wrapped, was charged once,
// its 3 items served uncharged, by 36161d3's flights (withdrawn): this
// guards the case.
func TestAttackRchi37FlightsChangedInPlaceCharged(t *testing.T) {
	t.Parallel()
	changes := map[string]func(*http.Request, int){
		"path":  func(r *http.Request, i int) { r.URL.Path = "/api/item" + string(rune('a'+i)) },
		"query": func(r *http.Request, i int) { r.URL.RawQuery = "item=" + string(rune('a'+i)) },
		"host":  func(r *http.Request, i int) { r.Host = string(rune('a'+i)) + ".example.com" },
	}
	for name, change := range changes {
		c := &charges{}
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("/api/*", c))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		hits := 0
		r := batchInPlace(chilimit.Limit(m), change, &hits)
		var per []int
		for range 3 {
			before := c.n
			from(r, http.MethodGet, "/api/batch", "192.0.2.1:1")
			per = append(per, c.n-before)
		}
		assert.Equal(t, 9, hits, name)
		assert.Equal(t, []int{4, 4, 4}, per, name)
	}
}
