package login_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

func TestNormalizeUsernameVariantsCollide(t *testing.T) {
	groups := [][]string{
		{"alice", "Alice", "ALICE", " alice ", "\talice\n", "ａｌｉｃｅ", "ＡＬＩＣＥ", "al\u200bice", "\u200balice",
			"alice\ufe0f", "al\u00adice", "a\u200dlice", "\u2002alice\u3000", "𝐚𝐥𝐢𝐜𝐞", "ⓐⓛⓘⓒⓔ", "\u00a0ALIce\u2060", "alice\x00", "alic\u0435"[:0] + "alice"},
		{"straße", "STRASSE", "strasse", "Straße", "ＳＴＲＡＳＳＥ"},
		{"kelvin", "\u212Aelvin", "KELVIN"},
		{"liı", "LII", "lİİ", "lii", "\u017fs"[:0] + "lIı"},
		{"ss", "ſs", "ſſ", "SS", "ß", "ẞ"},
		{"fish", "ﬁsh", "FISH"},
		{"\u00e9mile", "e\u0301mile", "E\u0301MILE", "\u00c9mile", "e\u200b\u0301mile"},
		{"σας", "ΣΑΣ", "σασ", "ΣΑΣ"},
		{"džemal", "ǅemal", "Ǆemal", "DŽemal"},
		{"\uab85\u13f8", "\u13b5\u13f0", "\u13b5\u13f8"}, // Cherokee, which x/text's Fold alone flips
		{"john smith", "John  Smith", "john\u3000smith", " JOHN\t\tSMITH "},
	}
	for _, g := range groups {
		want := login.NormalizeUsername(g[0])
		for _, v := range g[1:] {
			assert.Equal(t, want, login.NormalizeUsername(v), "%q vs %q", g[0], v)
		}
	}
	distinct := []string{"alice", "alicia", "bob", "alice1", "аlice" /* Cyrillic а */, "john smith", "johnsmith"}
	seen := map[string]string{}
	for _, d := range distinct {
		n := login.NormalizeUsername(d)
		_, dup := seen[n]
		assert.False(t, dup, "%q collides with %q", d, seen[n])
		seen[n] = d
	}
	assert.Equal(t, "alice", login.NormalizeUsername("ＡＬＩＣＥ"))
	assert.Equal(t, "", login.NormalizeUsername(" \u200b\ufeff\t"))
}

// variants returns the 1,024 spellings of "alice" that take each letter
// lower case, upper case, fullwidth lower case or fullwidth upper case.
func variants() []string {
	var out []string
	for i := range 1024 {
		var b strings.Builder
		for j, c := range "alice" {
			switch i >> (2 * j) & 3 {
			case 0:
				b.WriteRune(c)
			case 1:
				b.WriteRune(c - 'a' + 'A')
			case 2:
				b.WriteRune(c - 'a' + 'ａ')
			case 3:
				b.WriteRune(c - 'a' + 'Ａ')
			}
		}
		out = append(out, b.String())
	}
	return out
}

// The issue's attack: 1,024 spellings of one account, each guessed from a
// fresh address, share one counter: 5 free failures and the one that
// locks reach the credential check, not 6,144.
func TestUsernameVariantsShareOneCounter(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{})
	a := &app{}
	h := g.Handler(a)
	vs := variants()
	require.Len(t, vs, 1024)
	codes := map[int]int{}
	for i, v := range vs {
		codes[serve(h, formRequest(v, "guess", addr(i))).Code]++
	}
	assert.Equal(t, int64(6), a.checks.Load())
	assert.Equal(t, map[int]int{401: 6, 429: 1018}, codes)
}

// Begin, Unlock and the handler normalize alike; a custom Normalize
// replaces the default everywhere, and an identity function disables it.
func TestNormalizationOnEveryPath(t *testing.T) {
	ctx := context.Background()
	r := httptest.NewRequest(http.MethodPost, "/login", nil)
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{Account: core.Backoff{Free: 1, Base: time.Hour}})
	for range 2 {
		a, err := g.Begin(ctx, "ＡＬＩＣＥ", r)
		require.NoError(t, err)
		a.Failed()
	}
	_, err := g.Begin(ctx, "alice", r)
	require.ErrorIs(t, err, login.ErrThrottled)
	require.NoError(t, g.Unlock(ctx, " Ａlice\u200b"))
	a, err := g.Begin(ctx, "ALICE", r)
	require.NoError(t, err, "Unlock normalizes like Begin")
	a.Failed()

	exact := newGuard(t, clk, login.Options{Account: core.Backoff{Free: 1, Base: time.Hour}, Normalize: func(s string) string { return s }})
	for _, name := range []string{"Alice", "alice", "ALICE", "Alice"} {
		a, err := exact.Begin(ctx, name, r)
		require.NoError(t, err, name)
		a.Failed()
	}
	_, err = exact.Begin(ctx, "Alice", r)
	assert.ErrorIs(t, err, login.ErrThrottled)
	require.NoError(t, exact.Unlock(ctx, "Alice"))
	_, err = exact.Begin(ctx, "Alice", r)
	assert.NoError(t, err)
}

// Absurd usernames are refused, never normalized at length or panicked on.
func TestUsernameBounds(t *testing.T) {
	ctx := context.Background()
	r := httptest.NewRequest(http.MethodPost, "/login", nil)
	g := newGuard(t, coretest.NewClock(t0), login.Options{})
	_, err := g.Begin(ctx, strings.Repeat("a", login.MaxUsername+1), r)
	assert.ErrorIs(t, err, login.ErrUsernameTooLong)
	assert.ErrorIs(t, g.Unlock(ctx, strings.Repeat("a", login.MaxUsername+1)), login.ErrUsernameTooLong)
	a, err := g.Begin(ctx, strings.Repeat("\ufdfa", login.MaxUsername/3), r) // expands 18-fold under NFKC
	if err == nil {
		a.Failed()
	} else {
		assert.ErrorIs(t, err, login.ErrUsernameTooLong)
	}
	_, err = g.Begin(ctx, "\u200b\u200d", r)
	assert.ErrorIs(t, err, login.ErrNoUsername)
	h := g.Handler(&app{})
	assert.Equal(t, http.StatusBadRequest, serve(h, formRequest(strings.Repeat("x", 5000), "p", "192.0.2.1:1")).Code)
	// A normalizer returning something huge is bounded too.
	big := newGuard(t, coretest.NewClock(t0), login.Options{Normalize: func(s string) string { return strings.Repeat(s, 10000) }})
	_, err = big.Begin(ctx, "alice", r)
	assert.ErrorIs(t, err, login.ErrUsernameTooLong)
}

// FuzzNormalizeUsername checks that normalization is idempotent, yields
// valid trimmed UTF-8, and maps the equivalent forms of any string
// (canonical and compatibility decompositions and compositions, case
// folding, what strings.ToLower, strings.ToUpper and strings.EqualFold
// equate, surrounding white space and ignorable code points) to one name.
func FuzzNormalizeUsername(f *testing.F) {
	for _, s := range []string{"alice", "ＡＬＩＣＥ", "Straße", "\u212Aelvin", "ﬁ", "e\u0301", "ΣΑΣ", "ǅ", "İ", "ı",
		"\u200b", " a  b ", "\xff\xfe", "\ufdfa", "ᾈ", "ﬃ", "ǰ", "\u0345", "ŉ", "ẞ", "Å", "\u1e9b\u0323", "´", "\u13b5", "\uab85"} {
		f.Add(s)
	}
	fold := cases.Fold()
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > login.MaxUsername {
			return
		}
		n := login.NormalizeUsername(s)
		require.True(t, utf8.ValidString(n))
		require.Equal(t, n, login.NormalizeUsername(n), "not idempotent on %q", s)
		require.Equal(t, strings.TrimSpace(n), n)
		if !utf8.ValidString(s) {
			return
		}
		nfc := norm.NFC.String(s)
		for name, v := range map[string]string{
			"NFC": nfc, "NFD": norm.NFD.String(s), "NFKC": norm.NFKC.String(s), "NFKD": norm.NFKD.String(s),
			"padded": "\u3000\u200b" + s + " \ufeff",
			// Case mappings of the canonically ordered string: U+0345, a
			// combining mark, maps to a letter, so mapping it before or
			// after canonical reordering differs.
			"fold":    fold.String(nfc),
			"ToLower": strings.ToLower(nfc), "ToUpper": strings.ToUpper(nfc), "SimpleFold": strings.Map(unicode.SimpleFold, nfc),
		} {
			require.Equal(t, n, login.NormalizeUsername(v), "%s of %q", name, s)
		}
	})
}

func ExampleNormalizeUsername() {
	for _, s := range []string{" Alice ", "ＡＬＩＣＥ", "Straße", "\u212Aelvin", "al\u200bice"} {
		fmt.Printf("%q\n", login.NormalizeUsername(s))
	}
	// Output:
	// "alice"
	// "alice"
	// "strasse"
	// "kelvin"
	// "alice"
}
