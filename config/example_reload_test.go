package config_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/floodgate-go/floodgate/config"
)

// A configuration reloaded while it serves: the new limits apply to the
// counts kept; a file that would change more than limits is refused, and
// the running limits stay.
func ExampleLimiter_ReloadData() {
	// (Anchored windows start at a client's first request, so that what
	// this prints does not depend on the wall clock's hour.)
	file := func(rate string) []byte {
		return []byte("policies:\n  api: " + rate + "\ndefault: {policy: api}\n")
	}
	lim, err := config.Parse("limits.yaml", file("3/h fixed-window anchored"), config.Options{})
	if err != nil {
		panic(err)
	}
	defer lim.Close()
	h := lim.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	get := func() int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
		return w.Code
	}
	fmt.Println(get(), get(), get(), get())
	if err := lim.ReloadData("limits.yaml", file("5/h fixed-window anchored")); err != nil {
		panic(err)
	}
	fmt.Println(get(), get(), get())
	fmt.Println(lim.ReloadData("limits.yaml", []byte("policies:\n  api: 5/h fixed-window anchored\n  new: 1/s\ndefault: {policy: api}\n")))
	// Output:
	// 200 200 200 429
	// 200 200 429
	// limits.yaml:3:3: policies.new: a policy the running configuration does not have: a reload changes the limits of its policies, it adds none (load the file anew)
}
