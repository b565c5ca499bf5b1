package login_test

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// contractionApp is a login handler whose database matches usernames at
// primary strength; it counts the checks of each of the accounts it is
// given, by their primary keys.
type contractionApp struct {
	accounts map[string]*atomic.Int64 // by primary key
	names    map[string]string        // the accounts' names, by primary key
}

func (a *contractionApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	if n, ok := a.accounts[primaryKey(r.PostForm.Get("username"))]; ok {
		n.Add(1)
	}
	w.WriteHeader(http.StatusUnauthorized)
}

// TestAttackContractionSpellingsShareOneCounter: the Unicode Collation
// Algorithm reads some pairs of code points as one: "l·" is "l" (a
// Catalan contraction), and a Thai, Lao or Tai Viet vowel written before
// its consonant ("เก") is weighed after it, as "กเ" is. A database
// comparing usernames at primary strength takes "lillian", "l·il·l·ian"
// and the six other spellings for one account, and "เกเก", "กเเก" and
// "เกกเ" for another, where each spelling had a counter: 66 guesses from
// fresh addresses, 6 per spelling, all reached the checks instead of 6 per
// account.
func TestAttackContractionSpellingsShareOneCounter(t *testing.T) {
	spellings := map[string][]string{
		"lillian": {"lillian", "l·illian", "lil·lian", "lill·ian", "l·il·lian", "l·ill·ian", "lil·l·ian", "l·il·l·ian"},
		"เกเก":    {"เกเก", "กเเก", "เกกเ"},
	}
	a := &contractionApp{accounts: map[string]*atomic.Int64{}, names: map[string]string{}}
	for account, ss := range spellings {
		a.accounts[primaryKey(account)] = new(atomic.Int64)
		a.names[primaryKey(account)] = account
		for _, s := range ss {
			require.Equal(t, primaryKey(account), primaryKey(s), "%q", s)
		}
	}
	g := newGuard(t, coretest.NewClock(t0), login.Options{})
	h := g.Handler(a)
	n := 0
	for _, ss := range spellings {
		for _, s := range ss {
			for range 6 {
				serve(h, formRequest(s, "guess", addr(n)))
				n++
			}
		}
	}
	for k, checks := range a.accounts {
		assert.Equal(t, int64(6), checks.Load(), "guesses at %q that reached the check", a.names[k])
	}
	for account, ss := range spellings {
		for _, s := range ss {
			assert.Equal(t, login.NormalizeUsername(account), login.NormalizeUsername(s), "%q", s)
		}
	}
	// Only the pairs the collation reads as one: "l··" is "l" and "·",
	// "กเกเ" is not "เกเก".
	assert.NotEqual(t, login.NormalizeUsername("alice"), login.NormalizeUsername("al··ice"))
	assert.NotEqual(t, login.NormalizeUsername("เกเก"), login.NormalizeUsername("กเกเ"))
}
