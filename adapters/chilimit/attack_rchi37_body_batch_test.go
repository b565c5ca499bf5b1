package chilimit_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A batch handler serving each item through a use wrapped inside it, the
// request's body replaced in place for each (its length unchanged): with
// the body no part of a decision's snapshot (3071b02), nor of a flight,
// every item passed as the request decided, uncharged: 1 charge for each
// batch of 3 items, where any other field changed in place charges 4.
// 3071b02 was withdrawn; this guards the body's place in the snapshot:
// 4, 4, 4.
func TestAttackRchi37BodyBatchInPlace(t *testing.T) {
	t.Parallel()
	c := &charges{}
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("/api/*", c))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	hits := 0
	r := batchInPlace(chilimit.Limit(m), func(r *http.Request, i int) {
		r.Body = io.NopCloser(strings.NewReader("item" + string(rune('a'+i))))
	}, &hits)
	var per []int
	for range 3 {
		before := c.n
		from(r, http.MethodGet, "/api/batch", "192.0.2.1:1")
		per = append(per, c.n-before)
	}
	assert.Equal(t, 9, hits)
	assert.Equal(t, []int{4, 4, 4}, per)
}
