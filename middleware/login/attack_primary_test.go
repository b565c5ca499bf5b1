package login_test

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// primaryKey is how an application whose database compares usernames at the
// Unicode Collation Algorithm's primary strength sees one: MySQL's default
// collation (utf8mb4_0900_ai_ci), SQL Server's *_CI_AI, an ICU collation at
// strength 1. Letters without a canonical decomposition ("ł", "ø", "đ"),
// other scripts' digits ("١", "१"), kana of either script, enclosed and
// other variant letters are their base letter there.
func primaryKey(s string) string {
	var buf collate.Buffer
	return string(collate.New(language.Und, collate.Loose).KeyFromString(&buf, s))
}

// primaryApp is a login handler whose database matches usernames at
// primary strength; it counts the checks of the account "lukasz1".
type primaryApp struct{ checks atomic.Int64 }

func (a *primaryApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	if primaryKey(r.PostForm.Get("username")) == primaryKey("lukasz1") {
		a.checks.Add(1)
	}
	w.WriteHeader(http.StatusUnauthorized)
}

// TestAttackPrimaryEqualSpellingsShareOneCounter: to a database comparing
// usernames at primary strength, "łukasz1", "lukasz١", "🅻ukasz❶"
// ("🅛uꞣasz१") are all lukasz1, but these letters and digits have no canonical
// decomposition, so NormalizeUsername kept them and each spelling had a
// counter of its own: 60 guesses over 60 spellings, from fresh addresses,
// all reached lukasz1's check instead of 6.
func TestAttackPrimaryEqualSpellingsShareOneCounter(t *testing.T) {
	ls := []string{"l", "ł", "🅛", "🅻"}
	ks := []string{"k", "ꞣ", "🅚"}
	ones := []string{"1", "١", "۱", "१", "১", "❶", "➀", "๑", "၁", "᠑"}
	var spellings []string
	for _, l := range ls {
		for _, k := range ks {
			for _, one := range ones {
				spellings = append(spellings, l+"u"+k+"asz"+one)
			}
		}
	}
	g := newGuard(t, coretest.NewClock(t0), login.Options{})
	a := &primaryApp{}
	h := g.Handler(a)
	for i, s := range spellings[:60] {
		assert.Equal(t, primaryKey("lukasz1"), primaryKey(s), "%q", s)
		serve(h, formRequest(s, "guess", addr(i)))
	}
	assert.Equal(t, int64(6), a.checks.Load(), "guesses that reached the check")
	for _, s := range []string{"łukasz", "Łukasz", "ŁUKASZ", "lukasz"} {
		assert.Equal(t, "lukasz", login.NormalizeUsername(s), "%q", s)
	}
	for s, want := range map[string]string{"øyvind": "oyvind", "đorđe": "dorde", "æsa": "aesa", "œuvre": "oeuvre", "ħ": "h", "ð": "d"} {
		assert.Equal(t, want, login.NormalizeUsername(s), "%q", s)
	}
}
