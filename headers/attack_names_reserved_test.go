package headers_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackNamesOfHTTPFields: Names took any token, so that a field
// renamed "Content-Length" wrote a rate-limit value over the response's
// length (a truncated or hung response on every request), and
// "Set-Cookie", "Location", "Retry-After" (for a field other than
// Retry-After: clients waited the limit's seconds) or "X-Accel-Limit-Rate"
// (nginx throttled the body to that many bytes a second) gave the value a
// meaning of its own. New refuses a name with a meaning to HTTP, browsers
// or the servers in front, in any case.
func TestAttackNamesOfHTTPFields(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"Content-Length", "content-type", "Set-Cookie", "Transfer-Encoding", "Connection",
		"Content-Encoding", "Host", "Trailer", "Upgrade", "Location", "Cache-Control", "Vary", "Date", "Refresh",
		"Access-Control-Allow-Origin", "Www-Authenticate", "Status", "X-Accel-Limit-Rate", "X-Sendfile",
		"Strict-Transport-Security", "Keep-Alive", "Link", "Expires", "Etag", "Server"} {
		_, err := headers.New(headers.Options{Names: map[headers.Field]string{headers.XRateLimitLimit: name}})
		assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
	}
	_, err := headers.New(headers.Options{Omit: headers.RetryAfter,
		Names: map[headers.Field]string{headers.XRateLimitReset: "Retry-After"}})
	assert.ErrorIs(t, err, core.ErrInvalidConfig, "Retry-After for another field")

	for f, name := range map[headers.Field]string{headers.XRateLimitLimit: "X-Rate-Limit-Limit",
		headers.RetryAfter: "retry-after", headers.RateLimitPolicy: "X-Content-Quota"} {
		w, err := headers.New(headers.Options{Names: map[headers.Field]string{f: name}})
		require.NoError(t, err, name)
		assert.NotEmpty(t, w.Names())
	}
}
