package login_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
)

// jsonLoginApp is a JSON login handler written the common way: it decodes the
// body as JSON without looking at Content-Type (what gin's
// c.ShouldBindJSON, and most hand-written json.NewDecoder(r.Body) handlers,
// do). Its one account is alice/secret; it counts the credential checks
// made for alice.
type jsonLoginApp struct{ aliceChecks atomic.Int64 }

func (a *jsonLoginApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	if req.Username == "alice" {
		a.aliceChecks.Add(1)
		if req.Password == "secret" {
			w.WriteHeader(http.StatusOK)
			return
		}
	}
	w.WriteHeader(http.StatusUnauthorized)
}

// TestAttackFormJSONPolyglot: a body that is at once a JSON object naming
// alice and a form naming a decoy, sent as a form. The guard counted the
// decoy's account while a JSON handler that ignores Content-Type checked
// alice's password: 50 of 50 guesses reached it from 50 addresses, where
// the account limit allows 6 (found by an adversarial review). A form body
// that is a JSON document is now refused.
func TestAttackFormJSONPolyglot(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{})
	a := &jsonLoginApp{}
	h := g.Handler(a)
	const guesses = 50
	codes := map[int]int{}
	for i := range guesses {
		body := fmt.Sprintf(`{"username":"alice","password":"guess%d","x":"&username=decoy%d"}`, i, i)
		r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.RemoteAddr = addr(i)
		codes[serve(h, r).Code]++
	}
	// DefaultAccount: 5 free failures and the one that sets the first
	// lock, the clock standing still.
	assert.LessOrEqual(t, a.aliceChecks.Load(), int64(6),
		"credential checks of alice's password despite the account limit (codes %v)", codes)
}

// TestAttackRedirectBackUnderStripPrefix: a post/redirect/get login
// mounted under a prefix with http.StripPrefix
// (mux.Handle("/app/", http.StripPrefix("/app", guard.Handler(h)))) answers
// a wrong password with a redirect back to its public login page,
// "/app/login?error=1". The guard compared the Location with the stripped
// r.URL.Path ("/login") only, took the redirect for one leading away and
// refunded every wrong guess: 50 of 50 reached the credential check, where
// the account limit allows 6 (found by an adversarial review). The path
// the client sent counts too.
func TestAttackRedirectBackUnderStripPrefix(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{})
	checks := 0
	prg := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		checks++
		if r.PostFormValue("username") == "alice" && r.PostFormValue("password") == "secret" {
			http.Redirect(w, r, "/app/home", http.StatusSeeOther)
			return
		}
		http.Redirect(w, r, "/app/login?error=1", http.StatusSeeOther)
	})
	mux := http.NewServeMux()
	mux.Handle("/app/", http.StripPrefix("/app", g.Handler(prg)))
	for i := range 50 {
		r := formRequest("alice", fmt.Sprintf("guess%d", i), addr(i))
		r.URL.Path, r.RequestURI = "/app/login", "/app/login"
		serve(mux, r)
	}
	assert.LessOrEqual(t, checks, 6, "wrong guesses at alice that reached the credential check")
}
