package config

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
)

// rule is how the requests of one route (or the default) are limited.
// Exactly one of unlimited, tiers and lim is set; id and idLim go with lim.
type rule struct {
	name      string // keeps the rule's keys apart from every other rule's
	unlimited bool
	key       keyfunc.Func // counts the requests (the anonymous ones, with id)

	lim middleware.Limiter

	id    keyfunc.Func // the hashed identity; an error for anonymous requests
	idLim middleware.Limiter

	resolve func(*http.Request) (string, error)
	tiers   map[string]middleware.Limiter
}

// selector picks a request's rule by route, then the rule's limiter and
// key.
type selector struct {
	routes *middleware.Routes // nil without routes
	def    *rule              // nil without a default: unlimited
}

// marker stands for a rule in middleware.Routes, which matches requests to
// routes as the middleware does everywhere else. It never decides.
type marker struct{ rule *rule }

var errMarker = errors.New("config: internal error: a route marker was asked to decide")

func (*marker) AllowN(context.Context, string, int64) (core.Result, error) {
	return core.Result{}, errMarker
}

func (*marker) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, errMarker
}

func (s *selector) SelectKey(r *http.Request, route string) (middleware.Limiter, string, error) {
	ru := s.def
	if s.routes != nil {
		l, _, err := s.routes.Select(r, route)
		if err != nil {
			return nil, "", err
		}
		if p, ok := l.(*both.Pair); ok {
			return s.both(r, p)
		}
		if l != nil {
			m, ok := l.(*marker)
			if !ok {
				return nil, "", errMarker
			}
			ru = m.rule
		}
	}
	if ru == nil {
		return nil, "", nil
	}
	return ru.pick(r)
}

// both returns the limiter and key of r charged on the rules of every
// route of p, the routes r reaches by its method and path and those a
// variant of them names (see middleware.Routes.Select), all or nothing: a
// Pair of their limiters, each under its key (the middleware's KeySelector
// puts it in the Pair's scope). A rule leaving r unlimited leaves the
// others' limits alone, the stricter.
func (s *selector) both(r *http.Request, p *both.Pair) (middleware.Limiter, string, error) {
	var parts [both.MaxParts]both.Part
	for i, pt := range p.Parts() {
		m, ok := pt.Lim.(*marker)
		if !ok {
			return nil, "", errMarker
		}
		lim, key, err := m.rule.pick(r)
		if err != nil {
			return nil, "", err
		}
		if lim != nil {
			parts[i] = both.Part{Lim: lim, Scope: key}
		}
	}
	l, key := both.Of(parts[:len(p.Parts())]...)
	return l, key, nil
}

// pick returns the limiter and key of r under ru. The key is the rule's
// name, length-prefixed, a tag and the client's key: 'i' and the hashed
// identity for identified clients, 't', the tier length-prefixed and the
// key for tiers, 'k' and the key otherwise, so no two rules, tiers or
// classes of client ever share a key.
func (ru *rule) pick(r *http.Request) (middleware.Limiter, string, error) {
	if ru.unlimited {
		return nil, "", nil
	}
	prefix := strconv.Itoa(len(ru.name)) + ":" + ru.name
	if ru.id != nil {
		if id, err := ru.id(r); err == nil {
			return ru.idLim, prefix + "i" + id, nil
		}
	}
	lim, tag := ru.lim, "k"
	if ru.tiers != nil {
		tier, err := ru.resolve(r)
		if err != nil {
			return nil, "", fmt.Errorf("config: resolving the tier: %w", err)
		}
		if lim = ru.tiers[tier]; lim == nil {
			// A name the client may have written (a header resolve
			// reads): never copied whole into an error OnError logs per
			// request, as middleware.Tiers says.
			return nil, "", fmt.Errorf("%w %.64q", middleware.ErrUnknownTier, tier)
		}
		tag = "t" + strconv.Itoa(len(tier)) + ":" + tier
	}
	k, err := ru.key(r)
	if err != nil {
		return nil, "", err
	}
	return lim, prefix + tag + k, nil
}
