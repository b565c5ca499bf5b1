package login_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
)

// v2Name is how encoding/json/v2 matches an object member's name with a
// field's under `case:ignore` or MatchCaseInsensitiveNames: up to case,
// dashes and underscores ignored.
func v2Name(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

// v2App is a login handler binding its body the way encoding/json/v2 does
// with `json:"username,case:ignore"` and jsontext.AllowDuplicateNames(true)
// (or a form binder matching names so): of the members whose name matches
// "username", the last wins. It counts the checks of alice's password.
type v2App struct{ checks atomic.Int64 }

func (a *v2App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var user string
	if r.Header.Get("Content-Type") == "application/json" {
		var m []map[string]string // one member each, in order
		dec := json.NewDecoder(r.Body)
		if _, err := dec.Token(); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		for dec.More() {
			k, _ := dec.Token()
			var v string
			if err := dec.Decode(&v); err != nil {
				http.Error(w, "bad json", http.StatusBadRequest)
				return
			}
			m = append(m, map[string]string{k.(string): v})
		}
		for _, kv := range m {
			for k, v := range kv {
				if v2Name(k) == "username" {
					user = v
				}
			}
		}
	} else {
		b := new(bytes.Buffer)
		_, _ = b.ReadFrom(r.Body)
		for _, kv := range strings.Split(b.String(), "&") {
			k, v, _ := strings.Cut(kv, "=")
			k, _ = url.QueryUnescape(k)
			v, _ = url.QueryUnescape(v)
			if v2Name(k) == "username" {
				user = v
			}
		}
	}
	if user == "alice" {
		a.checks.Add(1)
	}
	w.WriteHeader(http.StatusUnauthorized)
}

// TestAttackNameVariantMembers: a body naming a decoy under "username" and
// alice under "user_name" (or "USER-NAME", "u_s_e_r_n_a_m_e"), which
// encoding/json/v2's case-insensitive matching takes for one name. The guard
// counted the decoy's account (a fresh one each time) while a handler
// binding as v2 does with duplicate names allowed checked alice's
// password: 30 of 30 guesses per spelling reached it, against 6. A member
// or form field whose name matches the username field's up to case, '-'
// and '_' is the username to the guard now, and two of them are refused
// with 400.
func TestAttackNameVariantMembers(t *testing.T) {
	for _, variant := range []string{"user_name", "USER-NAME", "u_s_e_r_n_a_m_e", "-Username_"} {
		for _, form := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/form=%v", variant, form), func(t *testing.T) {
				g := newGuard(t, coretest.NewClock(t0), login.Options{})
				a := &v2App{}
				h := g.Handler(a)
				codes := map[int]int{}
				for i := range 30 {
					decoy := fmt.Sprintf("decoy%d", i)
					var r *http.Request
					if form {
						body := "username=" + decoy + "&" + url.QueryEscape(variant) + "=alice&password=guess"
						r = httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body))
						r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					} else {
						body := fmt.Sprintf(`{"username":%q,%q:"alice","password":"guess"}`, decoy, variant)
						r = httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body))
						r.Header.Set("Content-Type", "application/json")
					}
					r.RemoteAddr = addr(i)
					codes[serve(h, r).Code]++
				}
				assert.LessOrEqual(t, a.checks.Load(), int64(6), "checks of alice's password (codes %v)", codes)
			})
		}
	}
	// The variant alone is the username to the guard, as to the handler:
	// counted on alice's account.
	g := newGuard(t, coretest.NewClock(t0), login.Options{})
	a := &v2App{}
	for i := range 30 {
		r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(`{"user_name":"alice","password":"guess"}`))
		r.Header.Set("Content-Type", "application/json")
		r.RemoteAddr = addr(i)
		serve(g.Handler(a), r)
	}
	assert.Equal(t, int64(6), a.checks.Load())
}
