package headers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/internal/sftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackObs37LongLimitNameBounded: a limit's name went into the draft
// 11 fields whole, however long (a core.Limit's Name has no bound; an
// Overrides provider may name limits after its data). RFC 9651 asks
// parsers to take sf-strings of 1,024 characters, no more: a limit named
// with 2,000 bytes wrote RateLimit and RateLimit-Policy values of over
// 2,000 bytes each, 4 limits of 16 KiB names 130 KiB of fields per
// response, past any proxy's header buffer (nginx's 4 to 8 KiB answer
// 502) and past what a client's parser must accept: the client lost every
// limit. Now a name longer than 128 bytes is written as its start and a
// hash of the whole (as the exporters' labels): each name at most 128
// bytes before escaping, two long names apart.
func TestAttackObs37LongLimitNameBounded(t *testing.T) {
	var limits []core.Limit
	for _, c := range []string{"a", "b", "c", "d"} {
		limits = append(limits, core.Limit{Name: "tenant-" + strings.Repeat(c, 16<<10), Algorithm: core.FixedWindow{Quota: 5, Window: time.Minute}})
	}
	limits[3].Name = limits[2].Name + "-day" // differs past any cut
	p := core.MustPolicy("p", limits...)
	l, err := core.NewLimiter(p)
	require.NoError(t, err)
	w, err := headers.New(headers.Options{})
	require.NoError(t, err)
	r, err := l.Allow(context.Background(), "k")
	require.NoError(t, err)
	h := http.Header{}
	w.Write(h, &r)
	total := 0
	for _, f := range []string{"Ratelimit", "Ratelimit-Policy"} {
		v := h.Get(f)
		total += len(v)
		items, err := sftest.ParseList(v)
		require.NoError(t, err, f)
		require.Len(t, items, 4, f)
		names := map[string]bool{}
		for _, it := range items {
			name := it.(sftest.Item).Bare.(string)
			assert.LessOrEqual(t, len(name), 1024, "%s: an sf-string of %d characters", f, len(name))
			assert.True(t, strings.HasPrefix(name, "tenant-"), "the name's start is kept")
			names[name] = true
		}
		assert.Len(t, names, 4, "%s: four long names stay apart", f)
	}
	assert.LessOrEqual(t, total, 4096, "bytes of the two fields")
}
