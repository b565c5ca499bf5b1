package headers_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/stretchr/testify/assert"
)

// Held values of another shape than the Writer's draft writes (another
// draft's, another library's, a handler's) were merged as they were: a
// draft 6 Writer behind a draft 11 one wrote `"global";q=100;w=60,
// 10;w=6` (a string item in a list of integers), a draft 11 Writer
// behind a draft 7 one `limit=100, remaining=0, reset=30, "burst";r=9;t=1`,
// and an X-RateLimit-Reset in HTTP-date form was restored beside its
// Remaining. No parser of the draft read them. What Combine cannot read
// as its draft's is now replaced, and every field it writes parses.
func TestAttackCombineHeldValuesOfAnotherShape(t *testing.T) {
	t.Parallel()
	r := take(t, newLimiter(t, coretest.NewClock(t0), burst), 1)
	held := []http.Header{
		{"Ratelimit-Policy": {`"global";q=100;w=60`}, "Ratelimit": {`"global";r=0;t=30`}},
		{"Ratelimit-Policy": {`100;w=60`}, "Ratelimit": {`limit=100, remaining=0, reset=30`}},
		{"Ratelimit": {`remaining=0, reset=30, limit="many"`}},
		{"Ratelimit-Policy": {`"a";q=1;w=60;comment="x"`, `"b"`}},
		{"Ratelimit-Policy": {`100;window=60`}, "Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"-1"}},
		{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"Fri, 02 Jan 2026 03:05:00 GMT"}, "X-Ratelimit-Limit": {"100"}},
		{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1767323100"}, "X-Ratelimit-Limit": {"1e2"}},
	}
	for _, d := range []headers.Draft{headers.DraftIETF11, headers.DraftIETF7, headers.DraftIETF6} {
		w := newWriter(t, headers.Options{Draft: d})
		for _, h := range held {
			h = h.Clone()
			w.Combine(h, &r)
			written := http.Header{}
			for _, name := range w.Names() {
				if v, ok := h[name]; ok {
					written[name] = v
				}
			}
			assert.Len(t, written, len(w.Names())-1, "%v: all but Retry-After", d)
			checkValid(t, written, d)
		}
	}
}
