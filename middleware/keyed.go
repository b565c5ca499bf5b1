package middleware

import (
	"fmt"
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/floodgate-go/floodgate/internal/isnil"
	"github.com/floodgate-go/floodgate/keyfunc"
)

// KeySelector picks, for each request, both the limiter that decides it
// and the key it is counted by, in one step: for limits whose key depends
// on the limiter chosen, such as API-key clients counted by key and the
// others by IP ([APIKeyOrIP]), or a key of its own per route. route is the
// route template when a router adapter knows it, "" for plain net/http.
//
// A nil Limiter with a nil error leaves the request unlimited; an error
// refuses it (see Options.NoKey), and so does an empty key. Keys of
// different limiters may be equal: each limiter keeps its own state.
type KeySelector interface {
	SelectKey(r *http.Request, route string) (lim Limiter, key string, err error)
}

// NewKeyed returns a middleware that decides each request with the limiter
// sel picks, counted by the key it picks with it. opts.Key must be nil:
// sel gives the key. A CORS preflight is selected as the request it
// announces (see [Preflight]).
func NewKeyed(sel KeySelector, opts Options) (*Middleware, error) {
	if isnil.Value(sel) {
		return nil, fmt.Errorf("middleware: NewKeyed: nil KeySelector (%T): %w", sel, core.ErrInvalidConfig)
	}
	if opts.Key != nil {
		return nil, fmt.Errorf("middleware: NewKeyed: Options.Key is set, but the KeySelector gives the key: %w", core.ErrInvalidConfig)
	}
	// The Selector puts the key in the scope, which the middleware joins
	// injectively to the key of Options.Key: a constant here.
	opts.Key = keyedConst
	return NewSelect(keyed{sel}, opts)
}

// keyedConst is the Options.Key of a keyed middleware.
func keyedConst(*http.Request) (string, error) { return "k", nil }

// keyed is a KeySelector as a Selector: the key is the scope. It begins
// with 'k', so it never begins with the NUL of preflight scopes.
type keyed struct{ ks KeySelector }

func (k keyed) Select(r *http.Request, route string) (Limiter, string, error) {
	l, key, err := k.ks.SelectKey(r, route)
	if p, ok := l.(*both.Pair); ok && err == nil && p.Origin() == nil {
		// Limiters each under its key in its scope (the config package's
		// routes of a request: see Routes.Select), as each alone.
		for _, pt := range p.Parts() {
			if pt.Scope == "" {
				return nil, "", fmt.Errorf("middleware: the KeySelector gave an empty key: %w", keyfunc.ErrNoKey)
			}
		}
		p.Prefix("k")
		return p, partsScope, nil
	}
	// A KeySelector wrapping Routes gives Routes' Pair of several routes
	// with a key of its own, built (or not) from the scope Routes gave:
	// the middleware asks it again for each route (see selectScoped).
	switch {
	case err != nil:
		return nil, "", err
	case l == nil:
		return nil, "", nil
	case isnil.Value(l):
		return nil, "", fmt.Errorf("middleware: the KeySelector gave a nil %T: %w", l, core.ErrInvalidConfig)
	case key == "":
		return nil, "", fmt.Errorf("middleware: the KeySelector gave an empty key: %w", keyfunc.ErrNoKey)
	}
	return l, "k" + key, nil
}

func (k keyed) validate() error {
	if v, ok := k.ks.(validator); ok {
		return v.validate()
	}
	return nil
}
