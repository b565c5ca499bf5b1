package config

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/floodgate-go/floodgate/internal/routepath"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"go.yaml.in/yaml/v3"
)

// ruleFields are the fields of a limit (the default, a route).
var ruleFields = []string{"policy", "key", "identified", "tiers"}

// routeFields are the fields of a route: where, then the limit.
var routeFields = append([]string{"pattern", "patterns", "name", "unlimited"}, ruleFields...)

// routes builds the routes section n: a list of routes, each limited by
// its own rule, matched as middleware.Routes matches them. def, the
// default's rule (nil: none), is the Routes' default, so that a request
// whose route a variant of its path names is charged on the default too
// when no route holds the pattern serving it (see selector.both).
func (b *builder) routes(n *yaml.Node, def *rule) *middleware.Routes {
	items, ok := b.list(n, "routes")
	if !ok {
		return nil
	}
	var d middleware.Limiter
	if def != nil {
		d = &marker{def}
	}
	rt := middleware.NewRoutes(d)
	for i, it := range items {
		what := fmt.Sprintf("routes[%d]", i)
		fs, ok := b.mapping(it, what, routeFields...)
		if !ok {
			continue
		}
		it, _ = b.deref(it)
		pats, nodes := b.patterns(it, fs, what)
		if pats == nil {
			continue
		}
		// A pattern ServeMux accepts may still match no request a
		// client sends: refused, never a route that limits nothing.
		bad := false
		for k, p := range pats {
			if col, err := routepath.Check(p); err != nil {
				b.patternError(nodes[k], col, fmt.Errorf("%s: pattern %q: %w", what, clip(p), err))
				bad = true
			}
		}
		name := strings.Join(pats, ", ")
		at := nodes[0]
		if f, ok := fs["name"]; ok {
			if name, ok = b.str(f.val, what+".name"); !ok {
				continue
			}
			at = f.val
		}
		ru := b.rule(it, fs, what, name)
		if ru == nil {
			continue
		}
		if strings.IndexByte(name, 0) >= 0 {
			b.errorf(at, "%s.name: contains a NUL byte", what)
			continue
		}
		if ru.unlimited && b.catchAll == nil {
			for k, p := range pats {
				if catchAll(p) {
					b.catchAll = nodes[k]
					break
				}
			}
		}
		if bad {
			continue
		}
		m := &marker{ru}
		for k, p := range pats {
			if err := rt.Share(name, m, p); err != nil {
				b.fail(nodes[k], fmt.Errorf("%s: %w", what, err))
			}
		}
	}
	return rt
}

// catchAllPath matches the patterns that hold every request: no method,
// no host, and a path of "/" or of one "{name...}" wildcard.
var catchAllPath = regexp.MustCompile(`^/(\{[A-Za-z_][A-Za-z0-9_]*\.\.\.\})?$`)

// catchAll reports whether ServeMux pattern p matches every request.
func catchAll(p string) bool { return catchAllPath.MatchString(strings.TrimSpace(p)) }

// patterns returns the patterns of a route: pattern or patterns.
func (b *builder) patterns(n *yaml.Node, fs map[string]field, what string) ([]string, []*yaml.Node) {
	p, one := fs["pattern"]
	ps, many := fs["patterns"]
	switch {
	case one && many:
		b.errorf(ps.key, "%s: pattern and patterns both given: want one", what)
	case one:
		s, ok := b.str(p.val, what+".pattern")
		if ok {
			v, _ := b.deref(p.val)
			return []string{s}, []*yaml.Node{v}
		}
	case many:
		s, nodes, ok := b.strs(ps.val, what+".patterns")
		if ok {
			return s, nodes
		}
	default:
		b.errorf(n, "%s: no pattern: want pattern (\"POST /login\") or patterns", what)
	}
	return nil, nil
}

// rule builds the limit of mapping n, whose fields are fs (the default's,
// or a route's, which include the route's own). name keeps its keys apart
// from those of every other rule, in every store.
func (b *builder) rule(n *yaml.Node, fs map[string]field, what, name string) *rule {
	if prev := b.rules[name]; prev != nil {
		b.errorf(n, "%s: the name %q is already a route's (line %d): name the routes apart", what, clip(name), prev.Line)
		return nil
	}
	b.rules[name] = n
	ru := &rule{name: name}
	if f, ok := fs["unlimited"]; ok {
		v, good := b.boolean(f.val, what+".unlimited")
		if good && !v {
			b.errorf(f.val, "%s.unlimited: false means nothing: leave it out", what)
			return nil
		}
		for _, k := range ruleFields {
			if g, ok := fs[k]; ok && good {
				b.errorf(g.key, "%s: %s given with unlimited: true", what, k)
				return nil
			}
		}
		ru.unlimited = good
		return ru
	}
	keyNode := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: defaultKey, Line: n.Line, Column: n.Column}
	if f, ok := fs["key"]; ok {
		keyNode = f.val
	}
	ru.key = b.key(keyNode, what+".key")
	pol, hasPolicy := fs["policy"]
	tiers, hasTiers := fs["tiers"]
	id, hasID := fs["identified"]
	switch {
	case hasTiers && (hasPolicy || hasID):
		b.errorf(tiers.key, "%s: tiers given with policy or identified: tiers name their own policies", what)
		return nil
	case hasTiers:
		if _, hasKey := fs["key"]; !hasKey {
			// The default key, ip, would count each plan per address: a
			// tenant calling from N addresses would get N times its plan.
			b.errorf(tiers.key, "%s.tiers: no key: tiers would count each plan per client IP, not per tenant: "+
				"give key: a user key naming the tenant (keys: {tenant: {user: …}}), or key: ip to count per address", what)
			return nil
		}
		b.tiers(tiers.val, what+".tiers", ru)
	case !hasPolicy:
		b.errorf(n, "%s: no policy: want policy (and key), tiers, or, for a route, unlimited: true", what)
		return nil
	default:
		if l := b.policy(pol.val, what+".policy"); l != nil {
			ru.lim = l
		}
		if hasID {
			b.identified(id.val, what+".identified", ru)
		}
	}
	return ru
}

// identified reads the identified clients of a rule: who they are and
// the policy they get, counted by identity.
func (b *builder) identified(n *yaml.Node, what string, ru *rule) {
	by, pol, ok := b.byAnd(n, what, "policy", "by (an identity of Options.Identities) and policy")
	if !ok {
		return
	}
	if fn := b.identity(by, what+".by"); fn != nil {
		ru.id = keyfunc.User(fn)
	}
	if l := b.policy(pol, what+".policy"); l != nil {
		ru.idLim = l
	}
}

// byAnd reads the mapping n of two fields, both required: by and other.
func (b *builder) byAnd(n *yaml.Node, what, other, want string) (by, val *yaml.Node, ok bool) {
	fs, ok := b.mapping(n, what, "by", other)
	if !ok {
		return nil, nil, false
	}
	f, hasBy := fs["by"]
	o, hasOther := fs[other]
	if !hasBy || !hasOther {
		b.errorf(n, "%s: want %s", what, want)
		return nil, nil, false
	}
	return f.val, o.val, true
}

// tiers reads the tiers of a rule: the function naming a request's tier
// and the policy of each tier.
func (b *builder) tiers(n *yaml.Node, what string, ru *rule) {
	by, pols, ok := b.byAnd(n, what, "policies", "by (a function of Options.Tiers) and policies (tier: policy)")
	if !ok {
		return
	}
	if name, ok := b.str(by, what+".by"); ok {
		if ru.resolve = b.opts.Tiers[name]; ru.resolve == nil {
			b.errorf(by, "%s.by: no tier function %q in Options.Tiers (%s)", what, clip(name), names(b.opts.Tiers))
		}
	}
	entries, ok := b.entries(pols, what+".policies")
	if !ok {
		return
	}
	if len(entries) == 0 {
		b.errorf(pols, "%s.policies: want at least one tier", what)
		return
	}
	ru.tiers = make(map[string]middleware.Limiter, len(entries))
	for _, e := range entries {
		if l := b.policy(e.val, what+".policies."+e.key.Value); l != nil {
			ru.tiers[e.key.Value] = l
		}
	}
}
