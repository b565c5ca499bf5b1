package login_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allocPerBegin returns the heap bytes one Begin of username allocates,
// averaged over 20 (a measure of the work normalization does, which grows
// with the length of its intermediate strings).
func allocPerBegin(t *testing.T, g *login.Guard, username string) uint64 {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/login", nil)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range 20 {
		if a, err := g.Begin(context.Background(), username, r); err == nil {
			a.Succeeded()
		}
	}
	runtime.ReadMemStats(&m1)
	return (m1.TotalAlloc - m0.TotalAlloc) / 20
}

// TestAttackExpandingUsernameBounded: a username of at most MaxUsername
// bytes made of code points that NFKC expands (U+FDFA is 18 code points,
// 33 bytes; U+3300 four katakana, 12 bytes) was normalized at full length,
// through two rounds of every step, before the 4*MaxUsername check refused
// it: 341 U+FDFA (1,023 bytes) made 11,253 bytes, cost 1.85 ms of CPU (43 µs
// for 1,024 ASCII letters) and 85 kB of allocations per attempt, throttled
// or not; 124 of them (372 bytes, 4,092 normalized) were even counted,
// though ErrUsernameTooLong says a name longer than MaxUsername as
// normalized is refused. The default normalization now gives up as soon as
// a step's output passes MaxUsername bytes.
func TestAttackExpandingUsernameBounded(t *testing.T) {
	g := newGuard(t, coretest.NewClock(t0), login.Options{})
	ctx := context.Background()
	r := httptest.NewRequest(http.MethodPost, "/login", nil)
	for name, s := range map[string]string{
		"341 U+FDFA": strings.Repeat("\ufdfa", 341),
		"124 U+FDFA": strings.Repeat("\ufdfa", 124),
		"341 U+3300": strings.Repeat("\u3300", 341),
		"86 U+3300":  strings.Repeat("\u3300", 86), // 258 bytes, 1,032 normalized
	} {
		require.LessOrEqual(t, len(s), login.MaxUsername, name)
		_, err := g.Begin(ctx, s, r)
		assert.ErrorIs(t, err, login.ErrUsernameTooLong, name)
	}
	// At the bound, an expanding name is still counted.
	a, err := g.Begin(ctx, strings.Repeat("\u3300", 85), r) // 1,020 bytes normalized
	require.NoError(t, err)
	a.Failed()

	ascii := allocPerBegin(t, g, strings.Repeat("a", login.MaxUsername))
	for _, s := range []string{strings.Repeat("\ufdfa", 341), strings.Repeat("\ufdfa", 124), strings.Repeat("\u3300", 341)} {
		got := allocPerBegin(t, g, s)
		assert.LessOrEqual(t, got, 3*ascii, "bytes allocated by %d bytes of %q (1,024 ASCII letters: %d)", len(s), s[:3], ascii)
	}
}
