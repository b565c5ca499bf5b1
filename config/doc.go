// Package config builds a floodgate middleware from a configuration file:
// the policies, the routes they limit, the keys requests are counted by,
// the tiers of identified clients and tenants, and the store (memory or
// Redis), in YAML or JSON, loaded with one call:
//
//	lim, err := config.Load("ratelimit.yaml", config.Options{})
//	if err != nil {
//		log.Fatal(err) // ratelimit.yaml:12:18: policies.api: rate "100/min brust 20": …
//	}
//	defer lim.Close()
//	http.ListenAndServe(addr, lim.Handler(mux))
//
// A file such as
//
//	policies:
//	  anonymous: 60/min
//	  partner: "burst: 20/s; daily: 100000/day fixed-window"
//	  login: 5/15m
//	default:
//	  policy: anonymous        # per client IP …
//	  identified:              # … except clients with a verified API key
//	    by: api-key            # Options.Identities["api-key"]
//	    policy: partner        # per account
//	routes:
//	  - pattern: POST /login
//	    policy: login
//
// limits every request by the rules of the route it reaches (matched as
// middleware.Routes matches patterns, variants of a path included), or by
// the default. The policies are written in the rate syntax of package core
// (see core.ParsePolicy). SCHEMA.md, next to this file, lists every field;
// examples/config/floodgate.yaml is a complete example, which the tests
// load.
//
// Everything is checked at load: an unknown or misspelt field (a typo must
// not silently drop a limit), an invalid rate, key, pattern, network or
// store setting, a name that refers to nothing, a second YAML document. Each
// mistake is an [Error] at its file:line:column, the column of the
// offending word within a rate string included; several are reported
// together. What the file names but cannot hold — the functions that
// verify API keys or name a tenant's plan — is given in [Options], by name.
//
// At request time nothing is left to fail but what a request brings: a
// request whose key cannot be found (a key from a header it lacks, a tier
// its tenant does not have) is refused, never served unlimited, and a
// store that fails answers as its failure mode says.
//
// [Limiter.Reload] reads the file again while the Limiter serves and
// applies its policies' new limits to the running limiters, every client
// keeping its count (read under the new limits as core.Limiter.SetPolicy
// says). It changes limits only: a file that adds or removes a policy, or
// changes a route, a key, the store or the headers, is refused, as is any
// file Load would refuse, and the running limits stay.
//
// Each route and the default keep their own buckets, in every store, even
// when they name the same policy and key, and so do identified and
// anonymous clients and the tiers of a route: a policy is a rate, not a
// shared counter. Patterns listed together in one route share theirs.
package config
