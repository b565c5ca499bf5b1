package routemethods_test

import (
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/internal/routemethods"
	"github.com/stretchr/testify/assert"
)

// A handler's pattern names every method reaching it at the template,
// sorted; a handler of one method has none; two spellings of a template
// read as one give a method the methods of both its handlers.
func TestPattern(t *testing.T) {
	routes := []routemethods.Route{
		{"POST", "/login", "login"}, {"PUT", "/login", "login"}, {"GET", "/login", "page"},
		{"GET", "/items", "items"}, {"POST", "/items", "add"},
		{"GET", "/x", "a"}, {"PUT", "/x", "a"}, {"GET", "/x", "b"}, {"POST", "/x", "b"},
	}
	tbl := routemethods.New(func() []routemethods.Route { return routes })
	for _, c := range []struct{ template, method, want string }{
		{"/login", "POST", "POST,PUT /login"},
		{"/login", "PUT", "POST,PUT /login"},
		{"/login", "GET", ""},
		{"/login", "DELETE", ""},
		{"/items", "GET", ""},
		{"/x", "GET", "GET,POST,PUT /x"},
		{"/x", "PUT", "GET,PUT /x"},
		{"/nowhere", "GET", ""},
	} {
		assert.Equal(t, c.want, tbl.Pattern(c.template, c.method), c)
	}
	for template, want := range map[string]bool{"/login": true, "/x": true, "/nowhere": false, "/login/": false} {
		_, listed := tbl.Lookup(template, "PUT")
		assert.Equal(t, want, listed, template)
	}
	// Serves tells a method served alone from one not served at all.
	for _, c := range []struct {
		template, method string
		want             bool
	}{
		{"/items", "GET", true}, {"/login", "PUT", true}, {"/login", "DELETE", false},
		{"/items", "OPTIONS", false}, {"/nowhere", "GET", false}, {"/login", "put", false},
	} {
		assert.Equal(t, c.want, tbl.Serves(c.template, c.method), c)
	}
}

// The routes are read at the first request and again only for a template
// not read before, once: a route added since is found, and a template the
// router never lists costs one reading, whatever method asks.
func TestPatternRereadsOncePerTemplate(t *testing.T) {
	routes := []routemethods.Route{{"POST", "/login", "login"}, {"PUT", "/login", "login"}}
	reads := 0
	tbl := routemethods.New(func() []routemethods.Route { reads++; return routes })
	for _, method := range []string{"POST", "PUT", "GET", "PURGE", "x"} {
		tbl.Pattern("/login", method)
	}
	assert.Equal(t, 1, reads)
	routes = append(routes, routemethods.Route{"GET", "/later", "later"}, routemethods.Route{"POST", "/later", "later"})
	assert.Equal(t, "GET,POST /later", tbl.Pattern("/later", "GET"))
	assert.Equal(t, 2, reads)
	for _, method := range []string{"GET", "PURGE", "x"} {
		assert.Empty(t, tbl.Pattern("/never", method))
		assert.Empty(t, tbl.Pattern("/later/", method))
	}
	assert.Equal(t, 4, reads)
	assert.Equal(t, "POST,PUT /login", tbl.Pattern("/login", "PUT"))
	assert.Equal(t, 4, reads)
}

// A route added after the first request at a template read already, for a
// method not listed there (r.Put("/login", h) beside r.Post("/login", h)),
// was never seen: the table answered from its first reading, and a PUT
// the router routed to the login handler was not limited by "POST
// /login". Routed now reads the routes again, once for each template and
// method the router routes by and the reading does not list; Lookup, for
// a method the router may answer itself (405), does not.
func TestAttackMethodAddedAtAListedTemplateIsSeen(t *testing.T) {
	t.Parallel()
	routes := []routemethods.Route{{"GET", "/login", "page"}, {"POST", "/login", "login"}}
	reads := 0
	tbl := routemethods.New(func() []routemethods.Route { reads++; return routes })
	assert.Empty(t, tbl.Pattern("/login", "POST"))
	routes = append(routes, routemethods.Route{"PUT", "/login", "login"})
	assert.Empty(t, tbl.Pattern("/login", "PUT"), "Lookup reads no route added")
	assert.False(t, tbl.Serves("/login", "PUT"))
	assert.Equal(t, 1, reads)
	p, listed := tbl.Routed("/login", "PUT")
	assert.Equal(t, "POST,PUT /login", p)
	assert.True(t, listed)
	assert.Equal(t, 2, reads)
	for range 2 {
		// A method routed at a template that no route lists it at (a
		// mount point's own pattern): one reading, then asked in vain.
		p, listed = tbl.Routed("/login", "DELETE")
		assert.Empty(t, p)
		assert.True(t, listed)
	}
	assert.Equal(t, 3, reads)
	routes = append(routes, routemethods.Route{"GET", "/later", "later"})
	assert.Equal(t, "", tbl.Pattern("/later", "GET"))
	assert.Equal(t, 4, reads)
	p, _ = tbl.Routed("/login", "DELETE")
	assert.Empty(t, p, "asked in vain before, across a reading")
	assert.Equal(t, "POST,PUT /login", tbl.Pattern("/login", "POST"))
	assert.Equal(t, 4, reads)
}

// Concurrent requests read the routes once.
func TestPatternConcurrent(t *testing.T) {
	var mu sync.Mutex
	reads := 0
	tbl := routemethods.New(func() []routemethods.Route {
		mu.Lock()
		reads++
		mu.Unlock()
		return []routemethods.Route{{"POST", "/login", "login"}, {"PUT", "/login", "login"}}
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { assert.Equal(t, "POST,PUT /login", tbl.Pattern("/login", "PUT")) })
	}
	wg.Wait()
	assert.Equal(t, 1, reads)
}

// Tables keeps one table for each router, whichever asked last, and reads
// each router's routes once.
func TestTables(t *testing.T) {
	reads := map[string]int{}
	list := func(router string) []routemethods.Route {
		reads[router]++
		return []routemethods.Route{{"GET", "/" + router, "h"}, {"POST", "/" + router, "h"}}
	}
	var ts routemethods.Tables[string]
	for range 3 {
		for _, router := range []string{"a", "b"} {
			assert.Equal(t, "GET,POST /"+router, ts.Of(router, list).Pattern("/"+router, "GET"))
		}
	}
	assert.Equal(t, map[string]int{"a": 1, "b": 1}, reads)
	assert.Same(t, ts.Of("a", list), ts.Of("a", list))
}
