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
	"net/http"
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

// entry is the pattern of a method at a template, or, vain, a method
// asked for there in vain.
type entry struct {
	method, pattern string
	vain            bool
}

// New returns the table of the routes list returns. list is called at the
// first request and again, at most once for each template, when a request
// reaches a template it did not list (a route added since), and, asked by
// [Table.Routed], at most once for each template and method, when the
// router routes a request by a method it did not list at a template it
// listed (a route of that method added there since).
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
	pattern, listed, _ = t.lookup(template, method, false)
	return pattern, listed
}

// Routed is Lookup for a request the router has routed by method to a
// handler of a route at template: a reading that lists template without
// method there is older than that route (r.Put("/login", h) added, after
// the first request, beside r.Post("/login", h)), and the routes are read
// again, at most once for each template and method. Without it, the PUT
// reached h without the limit of "POST /login", h's route.
func (t *Table) Routed(template, method string) (pattern string, listed bool) {
	pattern, listed, _ = t.lookup(template, method, true)
	return pattern, listed
}

// Serves reports whether the router lists a route of method (as the
// router spells it) at template: whether a request of method that the
// router routes to template reaches a handler of that route rather than
// the router's answer for a method it does not serve.
func (t *Table) Serves(template, method string) bool {
	_, _, served := t.lookup(template, method, false)
	return served
}

// Reads returns how many times the routes have been read: a change tells
// a caller keeping its own reading of the router (its mount points) that
// a route was added since.
func (t *Table) Reads() uint64 { return t.reads.Load() }

// Standard reports whether method is one of net/http's: an adapter whose
// router routes a request of a made-up method to a template (echo, to
// answer it 405) asks Routed for these alone, each of which reads the
// routes once at most for each template.
func Standard(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// lookup is Lookup, and whether the router lists method at template;
// routed, Routed.
func (t *Table) lookup(template, method string, routed bool) (pattern string, listed, served bool) {
	if s := t.state.Load(); s != nil {
		if es, ok := (*s)[template]; ok {
			if pattern, served, ok := current(es, method, routed); ok {
				return pattern, es != nil, served
			}
		}
	}
	return t.reread(template, method, routed)
}

// current returns the pattern of method among es, a template's entries,
// whether es lists method, and whether es answers for it: it is stale
// when older than a route of method the router has routed a request by
// there (routed), listing the template, neither serving method nor asked
// for it in vain.
func current(es []entry, method string, routed bool) (pattern string, served, ok bool) {
	pattern, served, asked := find(es, method)
	return pattern, served, !routed || es == nil || served || asked
}

// find returns the pattern of method among es, whether es lists method,
// and whether it was asked for in vain there.
func find(es []entry, method string) (pattern string, served, asked bool) {
	for _, e := range es {
		if e.method == method {
			return e.pattern, !e.vain, e.vain
		}
	}
	return "", false, false
}

// reread reads the routes again, for a template not read before or a
// method routed there since (see current), and returns lookup's answer from
// the new reading. A method routed there that the new reading does not
// list either is kept as asked in vain, across later readings.
func (t *Table) reread(template, method string, routed bool) (string, bool, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.state.Load()
	if old != nil {
		if es, ok := (*old)[template]; ok {
			if p, served, ok := current(es, method, routed); ok { // read by another request meanwhile
				return p, es != nil, served
			}
		}
	}
	s := read(t.list())
	if old != nil {
		for tmpl, es := range *old {
			now, listed := s[tmpl]
			if es == nil && !listed {
				s[tmpl] = nil
				continue
			}
			for _, e := range es {
				if _, served, _ := find(now, e.method); e.vain && listed && !served {
					s[tmpl] = append(s[tmpl], e) // asked in vain before
				}
			}
		}
	}
	es, ok := s[template]
	switch _, served, _ := find(es, method); {
	case !ok:
		s[template] = nil
	case routed && es != nil && !served:
		s[template] = append(es, entry{method: method, vain: true})
	}
	t.state.Store(&s)
	t.reads.Add(1)
	p, served, _ := find(s[template], method)
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
		s[k.template] = append(s[k.template], entry{method: k.method, pattern: p})
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
