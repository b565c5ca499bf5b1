package login_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware/login"
)

// Behind a load balancer (here at 10.0.0.5), the guard counts networks by
// the balancer's address unless Options.IP names it: one guesser trying
// 101 accounts (past DefaultNetwork's 100 free failures) then locks every
// user out, alice included, from her own address and with her right
// password. With IP set, only the guesser's network is locked. This is
// the README's recipe "Behind a load balancer or a proxy", played.
func ExampleOptions_behindAProxy() {
	for _, ip := range []keyfunc.IPOptions{
		{}, // the zero value: the direct peer, the balancer
		{TrustedProxyCIDRs: []string{"10.0.0.5/32"}}, // the load balancers' addresses
	} {
		g, err := login.New(login.Options{
			IP:    ip,
			Clock: coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)), // omit in production
		})
		if err != nil {
			panic(err)
		}
		h := g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.PostFormValue("username") == "alice" && r.PostFormValue("password") == "correct horse" {
				w.WriteHeader(http.StatusOK)
				return
			}
			w.WriteHeader(http.StatusUnauthorized)
		}))
		try := func(client, user, pass string) int {
			body := url.Values{"username": {user}, "password": {pass}}.Encode()
			r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.RemoteAddr = "10.0.0.5:41000" // the load balancer
			r.Header.Set("X-Forwarded-For", client)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w.Code
		}
		for n := range 101 {
			try("198.51.100.66", fmt.Sprintf("user%d", n), "guess")
		}
		fmt.Printf("trusted %v: alice %d, the guesser %d\n", ip.TrustedProxyCIDRs,
			try("203.0.113.9", "alice", "correct horse"), try("198.51.100.66", "bob", "guess"))
	}
	// Output:
	// trusted []: alice 429, the guesser 429
	// trusted [10.0.0.5/32]: alice 200, the guesser 429
}
