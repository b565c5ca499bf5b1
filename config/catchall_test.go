package config_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A route's pattern is a ServeMux pattern, where "/" is not the home page
// but every path. An operator exempting the home page with
// "{pattern: /, unlimited: true}" beside a default exempted every request
// no other route matched: the default limited nothing (1/min, 5 GETs and
// 5 POSTs of 5 served on /api/items). Such a route is refused when a
// default is given, pointing at "/{$}"; the home page alone, a catch-all
// of one method (which may be meant: "GET /" unlimited, writes limited)
// and a catch-all without a default are accepted.
func TestUnlimitedCatchAllBesideADefaultRefused(t *testing.T) {
	const head = "policies: {api: 1/min}\ndefault: {policy: api}\n"
	for _, routes := range []string{
		"routes: [{pattern: /, unlimited: true}]\n",
		"routes: [{pattern: \"/{rest...}\", unlimited: true}]\n",
		"routes: [{patterns: [GET /x, /], unlimited: true}]\n",
	} {
		l, err := config.Parse("t.yaml", []byte(head+routes), config.Options{})
		if l != nil {
			h := l.Handler(okHandler)
			t.Logf("%q: %d GETs and %d POSTs of 5 served", routes, serve(h, "GET", "/api/items", "192.0.2.1:1", 5), serve(h, "POST", "/api/items", "192.0.2.1:1", 5))
			_ = l.Close()
		}
		require.ErrorIs(t, err, core.ErrInvalidConfig, "accepted: %q", routes)
		assert.ErrorContains(t, err, "the default would limit no request")
	}
	for _, src := range []string{
		head + "routes: [{pattern: \"/{$}\", unlimited: true}]\n",
		head + "routes: [{pattern: GET /, unlimited: true}]\n",
		head + "routes: [{pattern: example.com/, unlimited: true}]\n",
		"policies: {api: 1/min}\nroutes: [{pattern: /, unlimited: true}, {pattern: POST /login, policy: api}]\n",
	} {
		l, err := config.Parse("t.yaml", []byte(src), config.Options{})
		require.NoError(t, err, src)
		require.NoError(t, l.Close())
	}
}
