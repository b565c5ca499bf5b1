// Package routemethods tells the router adapters which methods reach the
// handler a request reaches, so that
// [github.com/floodgate-go/floodgate/middleware.Routes] limits every one
// of them by the route guarding that handler: a router's routes, read once,
// grouped by template and handler, give for each template and method the
// pattern an adapter sets as r.Pattern while the request is decided
// ("PUT,POST,DELETE /login"), or none when the handler serves that method
// alone.
package routemethods

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Route is a route as a router lists it: a method, a template, and the
// identity of its handler, a comparable value equal for the same handler
// and only for it.
type Route struct {
	Method, Template string
	Handler          any
}

// Table is the patterns of a router's routes, read when first needed.
// It is safe for concurrent use.
type Table struct {
	list  func() []Route
	mu    sync.Mutex // serialises reads of the routes
	state atomic.Pointer[state]
	reads atomic.Uint64 // readings published
}

// state is a reading of the routes; it is never changed once published.
// It holds, by template, the pattern of each method ("" for a handler of
// that method alone): none for a template asked for in vain.
type state map[string][]entry

// entry is the pattern of a method at a template.
type entry struct{ method, pattern string }

// New returns the table of the routes list returns. list is called at the
// first request and again, at most once for each template, when a request
// reaches a template it did not list (a route added since).
func New(list func() []Route) *Table { return &Table{list: list} }

// Pattern returns the pattern naming the methods whose requests reach the
// handler a request of method reaches at template, comma-separated, a
// space and template ("GET,POST /login"), or "" when that handler serves
// method alone or the router lists no such route.
func (t *Table) Pattern(template, method string) string {
	p, _ := t.Lookup(template, method)
	return p
}

// Lookup is Pattern, and whether the router lists template.
func (t *Table) Lookup(template, method string) (pattern string, listed bool) {
	pattern, listed, _ = t.lookup(template, method)
	return pattern, listed
}

// Serves reports whether the router lists a route of method (as the
// router spells it) at template: whether a request of method that the
// router routes to template reaches a handler of that route rather than
// the router's answer for a method it does not serve.
func (t *Table) Serves(template, method string) bool {
	_, _, served := t.lookup(template, method)
	return served
}

// Reads returns how many times the routes have been read: a change tells
// a caller keeping its own reading of the router (its mount points) that
// a route was added since.
func (t *Table) Reads() uint64 { return t.reads.Load() }

// lookup is Lookup, and whether the router lists method at template.
func (t *Table) lookup(template, method string) (pattern string, listed, served bool) {
	if s := t.state.Load(); s != nil {
		if es, ok := (*s)[template]; ok {
			pattern, served = find(es, method)
			return pattern, es != nil, served
		}
	}
	return t.reread(template, method)
}

// find returns the pattern of method among es, and whether es lists
// method.
func find(es []entry, method string) (string, bool) {
	for _, e := range es {
		if e.method == method {
			return e.pattern, true
		}
	}
	return "", false
}

// reread reads the routes again, for a template not read before, and
// returns lookup's answer from the new reading.
func (t *Table) reread(template, method string) (string, bool, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.state.Load()
	if old != nil {
		if es, ok := (*old)[template]; ok { // read by another request meanwhile
			p, served := find(es, method)
			return p, es != nil, served
		}
	}
	s := read(t.list())
	if old != nil {
		for tmpl, es := range *old {
			if _, listed := s[tmpl]; es == nil && !listed {
				s[tmpl] = nil
			}
		}
	}
	if _, ok := s[template]; !ok {
		s[template] = nil
	}
	t.state.Store(&s)
	t.reads.Add(1)
	p, served := find(s[template], method)
	return p, s[template] != nil, served
}

// read groups routes by template and handler. A method with two handlers
// at one template (two spellings of it read as one) reaches the methods of
// both.
func read(routes []Route) state {
	type group struct {
		template string
		handler  any
	}
	methods := map[group][]string{}
	for _, r := range routes {
		g := group{r.Template, r.Handler}
		methods[g] = append(methods[g], r.Method)
	}
	type key struct{ template, method string }
	shared := map[key][]string{}
	for g, ms := range methods {
		for _, m := range ms {
			k := key{g.template, m}
			shared[k] = append(shared[k], ms...)
		}
	}
	s := state{}
	for k, ms := range shared {
		slices.Sort(ms)
		ms = slices.Compact(ms)
		p := ""
		if len(ms) > 1 {
			p = strings.Join(ms, ",") + " " + k.template
		}
		s[k.template] = append(s[k.template], entry{k.method, p})
	}
	return s
}

// Tables holds the tables of the routers an adapter serves, by router: in
// practice one, found at the cost of a comparison, or a few (one
// middleware mounted on several root routers), found without a lock.
type Tables[R comparable] struct {
	last atomic.Pointer[routerTable[R]]
	all  atomic.Pointer[map[R]*Table] // never changed once published
	mu   sync.Mutex                   // serialises additions to all
}

type routerTable[R comparable] struct {
	router R
	table  *Table
}

// Of returns the table of router, whose routes list returns. router must
// be comparable at run time (an interface holding a pointer, say).
func (ts *Tables[R]) Of(router R, list func(R) []Route) *Table {
	if l := ts.last.Load(); l != nil && l.router == router {
		return l.table
	}
	if all := ts.all.Load(); all != nil {
		if t := (*all)[router]; t != nil {
			return t // another router than the last: last is kept
		}
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	next := map[R]*Table{}
	if all := ts.all.Load(); all != nil {
		if t := (*all)[router]; t != nil {
			return t // added by another request meanwhile
		}
		for r, t := range *all {
			next[r] = t
		}
	}
	t := New(func() []Route { return list(router) })
	next[router] = t
	ts.all.Store(&next)
	ts.last.Store(&routerTable[R]{router, t})
	return t
}
