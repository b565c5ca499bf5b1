package login_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
)

func ExampleGuard_Handler() {
	clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	g, err := login.New(login.Options{
		Account: core.Backoff{Free: 2, Base: time.Minute, Max: time.Hour},
		Clock:   clk,
		OnLockout: func(kind string, retry time.Duration) {
			fmt.Printf("lockout: %s for %v\n", kind, retry)
		},
	})
	if err != nil {
		panic(err)
	}
	check := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.PostFormValue("username") == "alice" && r.PostFormValue("password") == "correct horse" {
			w.WriteHeader(http.StatusOK) // write the status: returning without one counts as a failure
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
	})
	h := g.Handler(check)
	try := func(pass string) {
		body := url.Values{"username": {"alice"}, "password": {pass}}.Encode()
		r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Header().Get("Retry-After"), w.Body.Len() > 0)
	}
	try("correct horse") // successes cost nothing
	try("guess 1")
	try("guess 2")
	try("guess 3") // beyond the 2 free failures: locks for a minute
	try("correct horse")
	clk.Advance(time.Minute)
	try("correct horse")
	// Output:
	// 200  false
	// 401  false
	// 401  false
	// lockout: account for 1m0s
	// 401  false
	// 429 60 true
	// 200  false
}
