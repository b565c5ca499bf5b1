package login_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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
		"\u200b", " a  b ", "\xff\xfe", "\ufdfa", "ᾈ", "ﬃ", "ǰ", "\u0345", "ŉ", "ẞ", "Å", "\u1e9b\u0323", "´", "\u13b5", "\uab85", "\U00010413\u0301", "\U00010438\u0308",
		"Łukasz١", "\u03d7\u0301", "Æ", "a\u0640b", "\u02a4\u0307",
		"L·l··", "ก\u200bเ", "เเก", "ເ\u0640ກ"} {
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
		// The reference forms as Unicode defines them, which x/text's
		// own NFC and NFKC are not for supplementary letters (see
		// unicodeForm).
		nfc := unicodeForm(norm.NFC, s)
		for name, v := range map[string]string{
			"NFC": nfc, "NFD": norm.NFD.String(s), "NFKC": unicodeForm(norm.NFKC, s), "NFKD": norm.NFKD.String(s),
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

// unicodeForm returns s in the composing form f (NFC or NFKC) as Unicode
// defines it: x/text looks compositions up by the low 16 bits of the
// starter without asking whether it composes, so that its NFC of Deseret
// U+10413 and U+0301 is Cyrillic U+0403. A supplementary code point that is
// inert (it composes with nothing and has no decomposition) ends a
// normalization segment, so s is normalized in pieces, each ending with
// one: there, nothing follows it.
func unicodeForm(f norm.Form, s string) string {
	var b strings.Builder
	start := 0
	for i, r := range s {
		if r > 0xFFFF && f.PropertiesString(s[i:]).BoundaryAfter() {
			end := i + utf8.RuneLen(r)
			b.WriteString(f.String(s[start:end]))
			start = end
		}
	}
	b.WriteString(f.String(s[start:]))
	return b.String()
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

// deseret is a username of a script whose letters are outside the Basic
// Multilingual Plane: five Deseret letters (lower case U+1043B, upper case
// U+10413), each with a combining acute accent, as the application that
// matches usernames by strings.ToLower registered it.
const deseret = "\U0001043b\u0301\U0001043b\u0301\U0001043b\u0301\U0001043b\u0301\U0001043b\u0301"

// lowerApp is a login handler that matches usernames case-insensitively
// (strings.ToLower) and counts the checks of the deseret account.
type lowerApp struct{ checks atomic.Int64 }

func (a *lowerApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	if strings.ToLower(r.PostForm.Get("username")) == deseret {
		a.checks.Add(1)
	}
	w.WriteHeader(http.StatusUnauthorized)
}

// TestAttackSupplementaryLetterSpellingsShareOneCounter: the 32 case
// spellings of a five-letter Deseret name, each letter with a combining
// accent, are one account to an application matching by strings.ToLower
// (and to PRECIS UsernameCaseMapped). x/text's composition looks pairs up
// by the low 16 bits of the starter, so NFKC composed upper-case U+10413
// and U+0301 as if it were Cyrillic U+0413 (into U+0403), and lower-case
// U+1043B and U+0301 not: each spelling normalized to a name of its own,
// 32 counters, and 192 guesses from fresh addresses reached the check
// instead of 6.
func TestAttackSupplementaryLetterSpellingsShareOneCounter(t *testing.T) {
	g := newGuard(t, coretest.NewClock(t0), login.Options{})
	a := &lowerApp{}
	h := g.Handler(a)
	n := 0
	for range 7 {
		for i := range 32 {
			var b strings.Builder
			for j := range 5 {
				r := rune(0x1043b)
				if i>>j&1 == 1 {
					r = 0x10413
				}
				b.WriteRune(r)
				b.WriteRune('\u0301')
			}
			serve(h, formRequest(b.String(), "guess", addr(n)))
			n++
		}
	}
	assert.Equal(t, int64(6), a.checks.Load(), "guesses that reached the check")
	assert.Equal(t, login.NormalizeUsername(deseret), login.NormalizeUsername(strings.ToUpper(deseret)))
	// A supplementary letter composes with nothing (not as the Cyrillic
	// letter of its low 16 bits); its marks are dropped, as every name's.
	assert.Equal(t, strings.Repeat("\U0001043b", 5), login.NormalizeUsername(deseret))
}
