package config_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// headers.omit names fields of the draft the file chooses. Draft 6 writes
// RateLimit-Limit, -Remaining and -Reset, which omit could not name, and no
// RateLimit field: "draft: 6, omit: [ratelimit]" was accepted and omitted
// nothing (the three fields still written on every response). A field the
// draft does not write is refused at its entry now, and draft 6's own
// fields can be named.
func TestHeadersOmitNamesFieldsOfTheDraft(t *testing.T) {
	const ok = "policies: {api: 1/s}\ndefault: {policy: api}\n"
	for src, want := range map[string]string{
		ok + "headers: {draft: 6, omit: [ratelimit]}\n":              "t.yaml:3:28: headers.omit: ratelimit: draft 6 writes no such field",
		ok + "headers: {draft: 7, omit: [ratelimit-limit]}\n":        "t.yaml:3:28: headers.omit: ratelimit-limit: draft 7 writes no such field",
		ok + "headers: {omit: [x-ratelimit, ratelimit-remaining]}\n": "t.yaml:3:31: headers.omit: ratelimit-remaining: draft 11 writes no such field",
	} {
		l, err := config.Parse("t.yaml", []byte(src), config.Options{})
		if l != nil {
			_ = l.Close()
		}
		require.ErrorIs(t, err, core.ErrInvalidConfig, "accepted: %q", src)
		assert.ErrorContains(t, err, want)
	}

	l, err := config.Parse("t.yaml", []byte(ok+"headers: {draft: 6, omit: [ratelimit-limit, ratelimit-reset]}\n"), config.Options{})
	require.NoError(t, err)
	defer l.Close()
	h := client{l.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})), "192.0.2.1:1", nil}
	got := h.do("GET", "/").Header()
	assert.Empty(t, got.Get("RateLimit-Limit"))
	assert.Empty(t, got.Get("RateLimit-Reset"))
	assert.Equal(t, "0", got.Get("RateLimit-Remaining"))
	assert.Equal(t, "1;w=1", got.Get("RateLimit-Policy"))
}
