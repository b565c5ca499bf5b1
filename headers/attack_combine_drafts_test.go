package headers_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/internal/sftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A draft 11 Writer combining behind one of draft 6 or 7 (a global
// limit, 3 a minute, spent, around a route's of 100): its RateLimit list
// named the route's limit alone, "route";r=97;t=60, and a client reading
// it was refused by the global limit, which it did not list (a draft 7
// Writer's RateLimit and RateLimit-Policy, of its field names, were
// replaced outright; with X-RateLimit-* omitted, no field of the response
// told of the global limit at all). The held binding limit's fields,
// read in the draft that wrote them, are now listed as an item of their
// own, "%held", beside the route's.
func TestAttackCombineListsALimitHeldInAnotherDraft(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	g, r := thirdTake(t, clk, "global", 3), thirdTake(t, clk, "route", 100)
	for _, d := range []headers.Draft{headers.DraftIETF6, headers.DraftIETF7} {
		h := http.Header{}
		newWriter(t, headers.Options{Draft: d, Omit: headers.XRateLimit}).Write(h, &g)
		newWriter(t, headers.Options{}).Combine(h, &r)
		rl, err := sftest.CheckRateLimit11(h.Get("RateLimit"))
		require.NoError(t, err, "%v: %s", d, h.Get("RateLimit"))
		pol, err := sftest.CheckPolicy11(h.Get("RateLimit-Policy"))
		require.NoError(t, err, "%v: %s", d, h.Get("RateLimit-Policy"))
		assert.Equal(t, []string{`"%held";r=0;t=55, "route";r=97;t=55`}, h.Values("RateLimit"), "%v", d)
		assert.Equal(t, []string{`"%held";q=3;w=60, "route";q=100;w=60`}, h.Values("RateLimit-Policy"), "%v", d)
		assert.Len(t, rl, 2)
		assert.Len(t, pol, 2)
	}
}

// The held binding limit of a draft 6 Writer is listed once, however many
// draft 11 Writers combine behind it (a global limit, draft 6, around a
// group's and a route's, draft 11): its fields stay in the response, and
// each Combine listed them again, "%held" repeated in every list (three
// times after three Combines, the later ones without a window), where a
// list names each limit once.
func TestAttackCombineListsAHeldLimitOnce(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	g, m, r := thirdTake(t, clk, "global", 3), thirdTake(t, clk, "group", 50), thirdTake(t, clk, "route", 100)
	h := http.Header{}
	newWriter(t, headers.Options{Draft: headers.DraftIETF6, Omit: headers.XRateLimit}).Write(h, &g)
	newWriter(t, headers.Options{}).Combine(h, &m)
	newWriter(t, headers.Options{}).Combine(h, &r)
	newWriter(t, headers.Options{}).Combine(h, &r)
	assert.Equal(t, []string{`"%held";r=0;t=55, "group";r=47;t=55, "route";r=97;t=55`}, h.Values("RateLimit"))
	assert.Equal(t, []string{`"%held";q=3;w=60, "group";q=50;w=60, "route";q=100;w=60`}, h.Values("RateLimit-Policy"))
}

// thirdTake returns the result of the third request taken from a limiter
// on clk whose one limit, name, admits quota a minute.
func thirdTake(t *testing.T, clk core.Clock, name string, quota int64) core.Result {
	t.Helper()
	return takeN(t, newLimiter(t, clk, core.Limit{Name: name, Algorithm: core.FixedWindow{Quota: quota, Window: 60e9}}), 3)
}
