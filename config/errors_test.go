package config_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// leaves returns the errors err joins, or err.
func leaves(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		if _, single := err.(*config.Error); !single {
			return j.Unwrap()
		}
	}
	return []error{err}
}

// Every mistake is refused at load, at its file:line:column, and wraps
// core.ErrInvalidConfig: nothing is left to fail, or to pass unlimited, at
// request time.
func TestErrorsArePositioned(t *testing.T) {
	for name, tc := range errorCases {
		t.Run(name, func(t *testing.T) {
			l, err := config.Parse("test.yaml", []byte(tc.src), options(nil))
			require.Error(t, err)
			assert.Nil(t, l)
			assert.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.True(t, strings.HasPrefix(err.Error(), tc.want), "got  %s\nwant %s", err, tc.want)
			assert.NotContains(t, err.Error(), "s3cret")
			for _, e := range leaves(err) {
				var ce *config.Error
				require.True(t, errors.As(e, &ce), "%v", e)
				assert.Equal(t, "test.yaml", ce.File)
				assert.Positive(t, ce.Line)
			}
		})
	}
}

// okRule is a valid configuration the error cases add mistakes to.
const okRule = "policies: {api: 1/s}\ndefault: {policy: api}\n"

// errorCases are configurations with one mistake each, and the start of
// the error each must give.
var errorCases = func() map[string]struct{ src, want string } {
	const ok = okRule
	return map[string]struct{ src, want string }{
		"unknown top field": {"polices: {api: 1/s}\ndefault: {policy: api}\n",
			`test.yaml:1:1: configuration: unknown field "polices": want version, store, keys, policies, default, routes, headers, dry_run`},
		"unknown route field": {ok + "routes:\n  - pattern: POST /login\n    polcy: api\n",
			`test.yaml:5:5: routes[0]: unknown field "polcy"`},
		"rate: unknown word, plain": {"policies:\n  api: 100/min brust 20\ndefault: {policy: api}\n",
			`test.yaml:2:16: policies.api: rate "100/min brust 20": core: unknown word "brust" at column 9 (did you mean "burst"?)`},
		"rate: unknown unit, quoted": {"policies:\n  api: \"100/mni\"\ndefault: {policy: api}\n",
			`test.yaml:2:13: policies.api: rate "100/mni": core: unknown unit "mni" at column 5`},
		"rate: in a flow mapping": {"policies: {a: 1/s, api: 'x/min'}\ndefault: {policy: api}\n",
			`test.yaml:1:26: policies.api: rate "x/min": core: count "x" at column 1`},
		"rate: folded, blamed at the value": {"policies:\n  api: >\n    100/min\n    brust 20\ndefault: {policy: api}\n",
			`test.yaml:2:8: policies.api: rate "100/min brust 20\n": core: unknown word "brust" at column 9`},
		"rate: multi-byte before the column": {"policies:\n  api: '\"é\": 1/s; b: 1/mni'\ndefault: {policy: api}\n",
			`test.yaml:2:24: policies.api: rate "\"é\": 1/s; b: 1/mni": core: unknown unit "mni" at column 17`},
		"rate: escapes, blamed at the value": {"policies:\n  api: \"\\x31/s brust\"\ndefault: {policy: api}\n",
			`test.yaml:2:8: policies.api: rate "1/s brust": core: unknown word "brust" at column 5`},
		"unknown policy":      {ok + "routes:\n  - pattern: GET /x\n    policy: apj\n", `test.yaml:5:13: routes[0].policy: no policy "apj" in policies`},
		"unknown key":         {"policies: {api: 1/s}\ndefault: {policy: api, key: tenat}\n", `test.yaml:2:29: default.key: no key "tenat" in keys`},
		"key cycle":           {ok + "keys:\n  a: {join: [b]}\n  b: {first: [ip, a]}\n", `test.yaml:5:19: keys.b.first: key "a" refers back to itself`},
		"key: two kinds":      {ok + "keys:\n  a: {header: X-A, const: x}\n", `test.yaml:4:6: keys.a: want one of`},
		"key: bad header":     {ok + "keys:\n  a: {header: \"X A\"}\n", `test.yaml:4:15: keys.a.header: keyfunc: Header: invalid header name "X A"`},
		"key: header Host":    {ok + "keys:\n  a: {header: host}\n", `test.yaml:4:15: keys.a.header: keyfunc: Header: Host: net/http moves it out of Request.Header`},
		"key: client_ip Host": {ok + "keys:\n  ip: {client_ip: {trusted_hops: 1, headers: [Host]}}\n", `test.yaml:4:47: keys.ip.client_ip.headers: keyfunc: invalid options: header Host: net/http moves it`},
		"key: bad proxy network": {ok + "keys:\n  ip:\n    client_ip:\n      trusted_proxies: [10.0.0.0/8, 10.0.0.0/33]\n",
			`test.yaml:6:37: keys.ip.client_ip.trusted_proxies: keyfunc:`},
		"key: hops and proxies": {ok + "keys:\n  ip:\n    client_ip: {trusted_proxies: [10.0.0.0/8], trusted_hops: 1}\n",
			`test.yaml:5:5: keys.ip.client_ip: keyfunc:`},
		"key: ipv6 prefix":       {ok + "keys:\n  ip: {client_ip: {ipv6_prefix: 16}}\n", `test.yaml:4:33: keys.ip.client_ip.ipv6_prefix: 16: want 32 to 128`},
		"key: nat64 prefix":      {ok + "keys:\n  ip: {client_ip: {nat64_prefixes: [\"2001:db8::/33\"]}}\n", `test.yaml:4:37: keys.ip.client_ip.nat64_prefixes: keyfunc: invalid options: NAT64 prefix "2001:db8::/33": want a length of 32, 40, 48, 56, 64 or 96 (RFC 6052)`},
		"key: source":            {ok + "keys:\n  ip: {client_ip: {source: x-real-ip}}\n", `test.yaml:4:28: keys.ip.client_ip.source: "x-real-ip": want x-forwarded-for, forwarded, none`},
		"key: headers untrusted": {ok + "keys:\n  ip: {client_ip: {headers: [X-Real-IP]}}\n", `test.yaml:4:8: keys.ip.client_ip: keyfunc: invalid options: Headers need trusted proxies or hops`},
		"unknown identity": {"policies: {api: 1/s}\ndefault: {policy: api, identified: {by: apikey, policy: api}}\n",
			`test.yaml:2:41: default.identified.by: no identity "apikey" in Options.Identities (given: "api-key", "tenant")`},
		"identified without policy": {"policies: {api: 1/s}\ndefault: {policy: api, identified: {by: api-key}}\n", `test.yaml:2:36: default.identified: want by`},
		"unknown tier function": {ok + "routes:\n  - pattern: /t/\n    tiers: {by: plans, policies: {free: api}}\n    key: ip\n",
			`test.yaml:5:17: routes[0].tiers.by: no tier function "plans" in Options.Tiers (given: "plan")`},
		"tiers with policy": {ok + "routes:\n  - pattern: /t/\n    policy: api\n    tiers: {by: plan, policies: {free: api}}\n",
			`test.yaml:6:5: routes[0]: tiers given with policy or identified`},
		"tier without policy": {ok + "routes:\n  - pattern: /t/\n    tiers: {by: plan, policies: {free: apii}}\n    key: ip\n",
			`test.yaml:5:40: routes[0].tiers.policies.free: no policy "apii" in policies`},
		"no policy":            {ok + "routes:\n  - pattern: /t/\n    key: ip\n", `test.yaml:4:5: routes[0]: no policy`},
		"unlimited false":      {ok + "routes:\n  - {pattern: /t/, unlimited: false}\n", `test.yaml:4:31: routes[0].unlimited: false means nothing`},
		"unlimited and policy": {ok + "routes:\n  - {pattern: /t/, unlimited: true, policy: api}\n", `test.yaml:4:37: routes[0]: policy given with unlimited: true`},
		"unlimited default":    {"policies: {api: 1/s}\ndefault: {unlimited: true}\n", `test.yaml:2:11: default: unknown field "unlimited"`},
		"duplicate pattern": {ok + "routes:\n  - {pattern: GET /x, policy: api}\n  - {pattern: get /x, policy: api}\n",
			`test.yaml:5:15: routes[1]: middleware: route "get /x" added twice`},
		"invalid pattern": {ok + "routes:\n  - {pattern: \"GET /{\", policy: api}\n", `test.yaml:4:15: routes[0]: middleware: route "GET /{"`},
		"no pattern":      {ok + "routes:\n  - {policy: api}\n", `test.yaml:4:5: routes[0]: no pattern`},
		"both patterns":   {ok + "routes:\n  - {pattern: /a, patterns: [/b], policy: api}\n", `test.yaml:4:19: routes[0]: pattern and patterns both given`},
		"route names clash": {ok + "routes:\n  - {pattern: /a, policy: api}\n  - {pattern: /b, name: /a, policy: api}\n",
			`test.yaml:5:5: routes[1]: the name "/a" is already a route's (line 4)`},
		"routes not a list":    {ok + "routes: {pattern: /a}\n", `test.yaml:3:9: routes: want a list of one or more values, not a mapping`},
		"empty join":           {ok + "keys:\n  k: {join: []}\n", `test.yaml:4:13: keys.k.join: want a list of one or more values, not an empty list`},
		"empty routes":         {ok + "routes: []\n", `test.yaml:3:9: routes: want a list of one or more values, not an empty list`},
		"duplicate key":        {"policies: {api: 1/s, api: 2/s}\ndefault: {policy: api}\n", `test.yaml:1:22: policies: "api" given twice (first at line 1)`},
		"merge key":            {"base: &b {policy: api}\n", `test.yaml:1:1: configuration: unknown field "base"`},
		"merge key in a rule":  {"policies: {api: 1/s}\ndefault:\n  <<: {policy: api}\n", `test.yaml:3:3: default: merge keys (<<) are not supported`},
		"custom tag":           {"policies: {api: !env API_RATE}\ndefault: {policy: api}\n", `test.yaml:1:17: policies.api: tag !env is not supported`},
		"version 2":            {"version: 2\n" + ok, `test.yaml:1:10: version: 2: want 1`},
		"dry_run not bool":     {ok + "dry_run: yes please\n", `test.yaml:3:10: dry_run: "yes please": want true or false`},
		"second document":      {ok + "---\n" + ok, `test.yaml:3:1: a second YAML document`},
		"yaml syntax":          {"policies: {api: 1/s\ndefault: {policy: api}\n", `test.yaml:1: yaml: did not find expected ',' or '}'`},
		"control character":    {"policies: {api: 1/s}\ndefault: {policy: \x01api}\n", `test.yaml:2:19: not UTF-8 text`},
		"invalid UTF-8":        {"policies:\n  api: 1/s \xff\n", `test.yaml:2:12: not UTF-8 text`},
		"empty":                {"", `test.yaml:1:1: empty configuration`},
		"comments only":        {"# nothing\n", `test.yaml:1:1: empty configuration`},
		"no limit":             {"policies: {api: 1/s}\n", `test.yaml:1:1: configuration: no limit`},
		"not a mapping":        {"- a\n- b\n", `test.yaml:1:1: configuration: want a mapping, not a list`},
		"store: both":          {ok + "store: {memory: {}, redis: {url: redis://x:1}}\n", `test.yaml:3:21: store: memory and redis both given`},
		"store: max_keys":      {ok + "store: {memory: {max_keys: 0}}\n", `test.yaml:3:28: store.memory.max_keys: 0: want 1 to`},
		"store: when_full":     {ok + "store: {memory: {when_full: evict}}\n", `test.yaml:3:29: store.memory.when_full: "evict": want evict-cheapest, refuse-new`},
		"redis: no address":    {ok + "store: {redis: {prefix: x}}\n", `test.yaml:3:16: store.redis: want one of url, url_env and addresses`},
		"redis: two addresses": {ok + "store: {redis: {url: redis://x:1, addresses: [x:1]}}\n", `test.yaml:3:35: store.redis: want one of url`},
		"redis: local without share": {ok + "store: {redis: {url: redis://x:1, failure_mode: local}}\n",
			`test.yaml:3:49: store.redis.failure_mode: local needs local_share`},
		"redis: share without local": {ok + "store: {redis: {url: redis://x:1, local_share: 0.5}}\n", `test.yaml:3:35: store.redis.local_share: only with failure_mode: local`},
		"redis: share out of range": {ok + "store: {redis: {url: redis://x:1, failure_mode: local, local_share: 1.5}}\n",
			`test.yaml:3:69: store.redis.local_share: "1.5": want a number from 1/65536 to 1`},
		"redis: share too small": {ok + "store: {redis: {url: redis://x:1, failure_mode: local, local_share: 1e-10}}\n",
			`test.yaml:3:69: store.redis.local_share: "1e-10": want a number from 1/65536 to 1`},
		"redis: failure mode": {ok + "store: {redis: {url: redis://x:1, failure_mode: open}}\n", `test.yaml:3:49: store.redis.failure_mode: "open": want fail-closed, fail-open, local`},
		"redis: timeout":      {ok + "store: {redis: {url: redis://x:1, timeout: -1s}}\n", `test.yaml:3:44: store.redis.timeout: "-1s": want a positive duration`},
		"redis: timeout in rate units": {ok + "store: {redis: {url: redis://x:1, timeout: 1min}}\n",
			`test.yaml:3:44: store.redis.timeout: "1min": want a positive duration such as 100ms or 1m30s, in Go's units ns, us, ms, s, m, h (not the rate syntax's min, sec, day)`},
		"redis: bad URL, password not shown": {ok + "store: {redis: {url: \"http://user:s3cret@x:1\"}}\n",
			`test.yaml:3:22: store.redis.url: not a Redis URL`},
		"redis: url_env unset": {ok + "store: {redis: {url_env: FLOODGATE_TEST_UNSET_VARIABLE}}\n",
			`test.yaml:3:26: store.redis.url_env: environment variable FLOODGATE_TEST_UNSET_VARIABLE is not set`},
		"redis: master_name with url": {ok + "store: {redis: {url: redis://x:1, master_name: m}}\n", `test.yaml:3:35: store.redis.master_name: only with addresses`},
		"redis: policy it cannot decide": {"policies: {api: 1/s burst 1, log: 3/1500ns sliding-log}\ndefault: {policy: api}\nstore: {redis: {url: redis://x:1}}\n",
			`test.yaml:1:35: policies.log: core: binding policy "log": redisstore:`},
		"store: redis and localfirst":          {ok + "store: {redis: {url: redis://x:1}, localfirst: {url: redis://x:1, nodes: 2}}\n", `test.yaml:3:36: store: redis and localfirst both given: want one`},
		"localfirst: no nodes":                 {ok + "store: {localfirst: {url: redis://x:1}}\n", `test.yaml:3:21: store.localfirst.nodes: required: how many processes share the limits`},
		"localfirst: nodes 0":                  {ok + "store: {localfirst: {url: redis://x:1, nodes: 0}}\n", `test.yaml:3:47: store.localfirst.nodes: 0: want 1 to 65536`},
		"localfirst: sync_period":              {ok + "store: {localfirst: {url: redis://x:1, nodes: 2, sync_period: 1ms}}\n", `test.yaml:3:63: store.localfirst.sync_period: 1ms: want 10ms to 1m0s`},
		"localfirst: timeout":                  {ok + "store: {localfirst: {url: redis://x:1, nodes: 2, timeout: 11s}}\n", `test.yaml:3:59: store.localfirst.timeout: 11s: want 1ms to 10s`},
		"localfirst: timeout 1ns":              {ok + "store: {localfirst: {url: redis://x:1, nodes: 2, timeout: 1ns}}\n", `test.yaml:3:59: store.localfirst.timeout: 1ns: want 1ms to 10s`},
		"localfirst: address scalar":           {ok + "store: {localfirst: {addresses: 5, nodes: 2}}\n", `test.yaml:3:33: store.localfirst.addresses: "5": want host:port`},
		"redis: timeout 1ns":                   {ok + "store: {redis: {url: redis://x:1, timeout: 1ns}}\n", `test.yaml:3:44: store.redis.timeout: 1ns: want 1ms to 10s`},
		"redis: timeout 11s":                   {ok + "store: {redis: {url: redis://x:1, timeout: 11s}}\n", `test.yaml:3:44: store.redis.timeout: 11s: want 1ms to 10s`},
		"redis: URL read_timeout 1ns":          {ok + "store: {redis: {url: \"redis://x:1?read_timeout=1ns\"}}\n", `test.yaml:3:22: store.redis.url: the URL's dial_timeout, read_timeout and write_timeout must be 1ms or more`},
		"redis: URL dial_timeout 1us":          {ok + "store: {localfirst: {url: \"redis://x:1?dial_timeout=1us\", nodes: 2}}\n", `test.yaml:3:27: store.localfirst.url: the URL's dial_timeout`},
		"redis: url_env holds the URL":         {ok + "store: {redis: {url_env: \"redis://default:s3cretPw@redis:6379\"}}\n", `test.yaml:3:26: store.redis.url_env: the environment variable it names is not set (the name is not quoted`},
		"redis: password_env holds a password": {ok + "store: {redis: {addresses: [\"r:6379\"], password_env: s3cretPw}}\n", `test.yaml:3:54: store.redis.password_env: the environment variable it names is not set (the name is not quoted`},
		"redis: address holds a URL":           {ok + "store: {redis: {addresses: [\"redis://default:s3cretPw@redis:6379\"]}}\n", `test.yaml:3:29: store.redis.addresses: an address holds a URL or credentials (not quoted here)`},
		"redis: address without port":          {ok + "store: {redis: {addresses: [\"127.0.0.1:6379\", x]}}\n", `test.yaml:3:47: store.redis.addresses: "x": want host:port`},
		"redis: address port 0":                {ok + "store: {redis: {addresses: [\"x:0\"]}}\n", `test.yaml:3:29: store.redis.addresses: "x:0": want host:port`},
		"localfirst: max_batch":                {ok + "store: {localfirst: {url: redis://x:1, nodes: 2, max_batch: 0}}\n", `test.yaml:3:61: store.localfirst.max_batch: 0: want 1 to 65536`},
		"localfirst: failure_mode":             {ok + "store: {localfirst: {url: redis://x:1, nodes: 2, failure_mode: local}}\n", `test.yaml:3:50: store.localfirst: unknown field "failure_mode"`},
		"localfirst: no address":               {ok + "store: {localfirst: {nodes: 2}}\n", `test.yaml:3:21: store.localfirst: want one of url, url_env and addresses`},
		"localfirst: bad URL":                  {ok + "store: {localfirst: {url: \"http://user:s3cret@x:1\", nodes: 2}}\n", `test.yaml:3:27: store.localfirst.url: not a Redis URL`},
		"localfirst: policy it cannot decide":  {"policies: {api: 1/s burst 1, log: 3/s sliding-log}\ndefault: {policy: api}\nstore: {localfirst: {url: redis://x:1, nodes: 2}}\n", `test.yaml:1:35: policies.log: core: binding policy "log": localfirst: policy "log": limit "log": core.SlidingLog cannot be synced`},
		"headers: unknown field":               {ok + "headers: {omit: [x-ratelimit, rate-limit]}\n", `test.yaml:3:31: headers.omit: unknown field "rate-limit"`},
		"headers: draft":                       {ok + "headers: {draft: 9}\n", `test.yaml:3:18: headers.draft: "9": want 11, 7, 6`},
	}
}()

// Several mistakes are reported together, each at its position.
func TestErrorsAreJoined(t *testing.T) {
	_, err := config.Parse("f.yaml", []byte("policies:\n  a: 1/mni\n  b: 2/s brust 3\ndefault: {policy: c}\n"), options(nil))
	require.Error(t, err)
	assert.Equal(t, []string{
		`f.yaml:2:8: policies.a: rate "1/mni": core: unknown unit "mni" at column 3 (did you mean "min"?): want ns, us, ms, s, sec, second, m, min, minute, h, hr, hour, d, day, w, week: invalid rate limit configuration`,
		`f.yaml:3:10: policies.b: rate "2/s brust 3": core: unknown word "brust" at column 5 (did you mean "burst"?): want an algorithm (gcra, token-bucket, leaky-bucket, fixed-window, sliding-window, sliding-log, hybrid, rolling-window, warm-up, backoff) or a parameter (burst, no-delay, anchored, count-rejected, every, cap, cold, base, max, forgive): invalid rate limit configuration`,
		`f.yaml:4:19: default.policy: no policy "c" in policies`,
	}, strings.Split(err.Error(), "\n"))
}

// Options the file cannot override are refused: a Key (the file gives the
// keys) and Headers given twice.
func TestOptionsConflicts(t *testing.T) {
	src := []byte("policies: {api: 1/s}\ndefault: {policy: api}\nheaders: {omit: [ietf]}\n")
	_, err := config.Parse("f.yaml", src, config.Options{Middleware: middleware.Options{Key: keyfunc.Method}})
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
	w, err := headers.New(headers.Options{})
	require.NoError(t, err)
	_, err = config.Parse("f.yaml", src, config.Options{Middleware: middleware.Options{Headers: w}})
	assert.ErrorContains(t, err, "f.yaml:3:1: headers: Options.Middleware.Headers is set too")
	_, err = config.Load("does-not-exist.yaml", config.Options{})
	assert.ErrorContains(t, err, "config: open does-not-exist.yaml")
}

// TestAttackAliasExpansion: aliases of aliases are refused past
// 100,000 nodes, at once: key definitions aliasing a join of thousands of
// items (155 KB) took 5.7 s and 1.26 GB to parse, and as long again to
// reload (found by an adversarial review). A file using anchors as people
// do still loads.
func TestAttackAliasExpansion(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("policies: {api: 10/min}\ndefault: {policy: api, key: k0}\nkeys:\n  k0: &K {join: [")
	for i := range 3000 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("ip")
	}
	b.WriteString("]}\n")
	for i := 1; i < 3000; i++ {
		fmt.Fprintf(&b, "  k%d: *K\n", i)
	}
	_, err := config.Parse("test.yaml", []byte(b.String()), options(nil))
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "test.yaml:1:1: the file's aliases expand it to more than 100000 nodes")

	l, err := config.Parse("test.yaml", []byte("policies: {api: &r 10/min, other: *r}\ndefault: {policy: api}\nroutes:\n  - &route {pattern: GET /a, policy: other}\n"), options(nil))
	require.NoError(t, err)
	require.NoError(t, l.Close())
}
