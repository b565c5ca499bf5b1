package login_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// accentInsensitive is how an application matching usernames
// accent-insensitively compares them: MySQL's default collation
// (utf8mb4_0900_ai_ci), MariaDB's utf8mb4_general_ci, PostgreSQL's
// unaccent, a nondeterministic ICU collation at strength 1. Here: the
// marks of the decomposed string dropped, then lower-cased.
func accentInsensitive(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.Predicate(isMark)), norm.NFC)
	out, _, _ := transform.String(t, s)
	return strings.ToLower(out)
}

// isMark reports whether r is a nonspacing or enclosing mark, which an
// accent-insensitive collation ignores.
func isMark(r rune) bool { return unicode.In(r, unicode.Mn, unicode.Me) }

// accentApp is a login handler whose database matches usernames
// accent-insensitively; it counts the checks of alice's account.
type accentApp struct{ checks atomic.Int64 }

func (a *accentApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	if accentInsensitive(r.PostForm.Get("username")) == "alice" {
		a.checks.Add(1)
	}
	w.WriteHeader(http.StatusUnauthorized)
}

// TestAttackAccentSpellingsShareOneCounter: to an application matching
// usernames accent-insensitively (MySQL's default collation), "álice",
// "alicé", "alice" with any run of combining marks are all alice; each
// normalized to a name of its own, so every spelling had a counter: 60
// guesses from fresh addresses, over 60 spellings, all reached alice's
// check instead of 6.
func TestAttackAccentSpellingsShareOneCounter(t *testing.T) {
	g := newGuard(t, coretest.NewClock(t0), login.Options{})
	a := &accentApp{}
	h := g.Handler(a)
	marks := []rune{'\u0300', '\u0301', '\u0302', '\u0303', '\u0308', '\u030a', '\u0327', '\u0323', '\u0304', '\u20dd'}
	n := 0
	for i := range 60 {
		// One mark after the i%5-th letter, and i/5 more at the end.
		var b strings.Builder
		for j, c := range "alice" {
			b.WriteRune(c)
			if j == i%5 {
				b.WriteRune(marks[i%len(marks)])
			}
		}
		b.WriteString(strings.Repeat("\u0301", i/5))
		serve(h, formRequest(b.String(), "guess", addr(n)))
		n++
	}
	assert.Equal(t, int64(6), a.checks.Load(), "guesses that reached the check")
	for _, s := range []string{"álice", "ALÍCE", "a\u0301lice\u0300\u0300", "ålicê", "alice\u20dd", "ａ\u0301ｌｉｃｅ"} {
		assert.Equal(t, "alice", login.NormalizeUsername(s), "%q", s)
	}
}
