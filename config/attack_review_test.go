package config_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackSecretURLInPlaceOfMapping: an operator who writes the Redis
// URL (with its password) directly under store, store.redis or
// store.localfirst, rather than under url, got an error quoting the URL,
// password included (found by an adversarial review). No value that may
// hold a URL or credentials is quoted in an error now, wherever it is.
func TestAttackSecretURLInPlaceOfMapping(t *testing.T) {
	const secret = "hunter2-s3cret"
	url := "redis://:" + secret + "@cache:6379"
	for _, src := range []string{
		"store: " + url + "\npolicies: {api: 1/s}\ndefault: {policy: api}\n",
		"store:\n  redis: " + url + "\npolicies: {api: 1/s}\ndefault: {policy: api}\n",
		"store:\n  localfirst: " + url + "\npolicies: {api: 1/s}\ndefault: {policy: api}\n",
	} {
		_, err := config.Parse("t.yaml", []byte(src), config.Options{})
		require.Error(t, err, src)
		require.ErrorIs(t, err, core.ErrInvalidConfig)
		assert.NotContains(t, err.Error(), secret, "the password is quoted in the error")
	}
}

// TestAttackKeyReferenceExpansion: keys refer to keys by name, and each
// reference is read on every request. A chain of n keys, each joining the
// previous one twice, reads 2^n keys per request: the "billion laughs"
// the alias cap stops, written with key names. Parse accepted 17 levels
// (491 bytes), and one request then read the leaf key 131,072 times and
// built a key of megabytes; at 40 a request never ends (found by an
// adversarial review). A key reading more than maxKeyReads (64) keys per
// request is now refused at its line.
func TestAttackKeyReferenceExpansion(t *testing.T) {
	const levels = 17
	var b strings.Builder
	b.WriteString("keys:\n  k0: {user: who}\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "  k%d: {join: [k%d, k%d]}\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "policies: {api: 1/s}\ndefault: {policy: api, key: k%d}\n", levels)
	calls := 0
	opts := config.Options{Identities: map[string]func(*http.Request) (string, bool){
		"who": func(*http.Request) (string, bool) { calls++; return "u", true },
	}}
	l, err := config.Parse("t.yaml", []byte(b.String()), opts)
	if err == nil {
		defer l.Close()
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = "192.0.2.1:1"
		w := httptest.NewRecorder()
		l.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(w, r)
		t.Logf("a %d-byte file: one request called the leaf key %d times", b.Len(), calls)
	}
	require.Error(t, err, "a key expanding to 2^%d references is accepted", levels)
	require.ErrorIs(t, err, core.ErrInvalidConfig)
}

// TestTagOnCollectionRefused: SCHEMA.md says "tags other than YAML's own
// (`!env …`) are refused". A tag on a scalar was; one on a mapping or a
// list (default: !env {…}, policies: !vault {…}) was ignored, so that a
// file written for a preprocessor that substitutes it loaded with its
// unsubstituted contents (found by an adversarial review).
func TestTagOnCollectionRefused(t *testing.T) {
	for _, src := range []string{
		"policies: {api: 1/s}\ndefault: !env {policy: api}\n",
		"policies: !vault {api: 1/s}\ndefault: {policy: api}\n",
		"policies: {api: 1/s}\nroutes: !include [{pattern: GET /a, policy: api}]\n",
	} {
		l, err := config.Parse("t.yaml", []byte(src), config.Options{})
		if l != nil {
			_ = l.Close()
		}
		assert.ErrorIs(t, err, core.ErrInvalidConfig, "accepted: %q", src)
	}
}

// TestKeyReadsBound: a key reading up to maxKeyReads (64) keys per
// request parses, one reading more is refused where its list is written.
func TestKeyReadsBound(t *testing.T) {
	src := func(levels int) string {
		var b strings.Builder
		b.WriteString("keys:\n  k0: {header: X-A}\n")
		for i := 1; i <= levels; i++ {
			fmt.Fprintf(&b, "  k%d: {join: [k%d, k%d]}\n", i, i-1, i-1)
		}
		fmt.Fprintf(&b, "policies: {api: 1/s}\ndefault: {policy: api, key: k%d}\n", levels)
		return b.String()
	}
	l, err := config.Parse("t.yaml", []byte(src(6)), config.Options{}) // 64 reads
	require.NoError(t, err)
	require.NoError(t, l.Close())
	_, err = config.Parse("t.yaml", []byte(src(7)), config.Options{}) // 128
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "t.yaml:9:")
	assert.Contains(t, err.Error(), "reads 128 keys per request")
}
