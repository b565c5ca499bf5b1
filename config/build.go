package config

import (
	"errors"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/redis/go-redis/v9"
	"go.yaml.in/yaml/v3"
)

// builder turns the nodes of a file into the middleware's selector and
// options.
type builder struct {
	*decoder
	opts Options

	store  core.Store
	redis  *redisstore.Store // nil but with store.redis
	lf     *localfirst.Store // nil but with store.localfirst
	client redis.UniversalClient

	keys     map[string]*keyDef
	policies map[string]*policyDef
	// running is, for a reload, the configuration serving: its store and
	// limiters are kept (see reload.go).
	running *Limiter
	rules   map[string]*yaml.Node // rule names, by where they were given
	// catchAll is the first pattern of an unlimited route that matches
	// every request ("/"), nil if none.
	catchAll *yaml.Node
}

// topFields are the fields of the top level.
var topFields = []string{"version", "store", "keys", "policies", "default", "routes", "headers", "dry_run"}

// build reads the top level in the order the sections depend on each
// other, whatever their order in the file.
func (b *builder) build(root *yaml.Node) (middleware.KeySelector, middleware.Options) {
	top, _ := b.mapping(root, "configuration", topFields...)
	mopts := b.opts.Middleware
	if f, ok := top["version"]; ok {
		b.integer(f.val, "version", 1, 1)
	}
	if b.running != nil {
		b.store = b.running.store // the store section is the running one's
	} else {
		b.buildStore(top["store"].val, &mopts)
	}
	b.buildKeys(top["keys"].val)
	b.buildPolicies(top["policies"].val)
	if f, ok := top["headers"]; ok {
		if mopts.Headers != nil {
			b.errorf(f.key, "headers: Options.Middleware.Headers is set too: give the headers in one place")
		} else {
			mopts.Headers = b.headers(f.val)
		}
	}
	if f, ok := top["dry_run"]; ok {
		if v, ok := b.boolean(f.val, "dry_run"); ok && v {
			mopts.DryRun = true
		}
	}
	sel := &selector{}
	b.rules = map[string]*yaml.Node{}
	if f, ok := top["default"]; ok {
		if fs, ok := b.mapping(f.val, "default", ruleFields...); ok {
			n, _ := b.deref(f.val)
			sel.def = b.rule(n, fs, "default", "")
		}
	}
	if f, ok := top["routes"]; ok {
		sel.routes = b.routes(f.val, sel.def)
	}
	if _, ok := top["default"]; ok && b.catchAll != nil {
		// "/" is every path in a ServeMux pattern, not the home page.
		b.errorf(b.catchAll, "routes: %q with unlimited: true matches every request no other route does: the default would limit no request (the home page alone is \"/{$}\")", b.catchAll.Value)
	}
	if _, ok := top["default"]; !ok && sel.routes == nil && len(b.errs) == 0 {
		b.errorf(root, "configuration: no limit: want a default limit, routes, or both")
	}
	return sel, mopts
}

// closeStore releases the Redis store and client of a file that failed.
func (b *builder) closeStore() {
	switch {
	case b.redis != nil:
		_ = errors.Join(b.redis.Close(), b.client.Close())
	case b.lf != nil:
		_ = errors.Join(b.lf.Close(), b.client.Close())
	}
}
