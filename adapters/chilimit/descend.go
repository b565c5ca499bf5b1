package chilimit

import (
	"fmt"
	"reflect"

	"github.com/floodgate-go/floodgate/core"
	"github.com/go-chi/chi/v5"
)

// maxMountDepth bounds the sub-routers nested in one another that the
// route tables are read through: far beyond any application's, short of
// a stack overflow.
const maxMountDepth = 64

// descent is the chain of sub-routers a reading of a router's routes is
// in, from the root: a router mounted inside itself (r.Mount("/x", sub);
// sub.Mount("/y", r)) would be read without end. chi routes such a tree,
// each request by its finite path, but every route of it is then reached
// by endless patterns ("/x/login", "/x/y/x/login"), which no table of
// routes can list: the request is refused as a setup mistake.
type descent []chi.Routes

// into returns d with sub, mounted at pattern, added; it panics with
// core.ErrInvalidConfig when sub is in d already, or d is too deep.
func (d descent) into(sub chi.Routes, pattern string) descent {
	if len(d) >= maxMountDepth {
		panic(fmt.Errorf("chilimit: sub-routers nested deeper than %d at %q (a router mounted inside itself?): %w", maxMountDepth, pattern, core.ErrInvalidConfig))
	}
	if reflect.ValueOf(sub).Comparable() {
		for _, r := range d {
			if r == sub {
				panic(fmt.Errorf("chilimit: a router is mounted inside itself at %q: its routes have no end of patterns to limit them by: %w", pattern, core.ErrInvalidConfig))
			}
		}
	}
	return append(d[:len(d):len(d)], sub)
}
