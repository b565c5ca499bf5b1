package echolimit_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRealIPWithoutExtractor: RealIP on a server without an
// IPExtractor took echo's legacy answer, the first X-Forwarded-For entry
// (or X-Real-IP) of any request, from any peer: one client writing a new
// address each time had a fresh budget per request (10 requests, 10 keys),
// and one writing a victim's address spent the victim's. Without an
// extractor, nothing but RemoteAddr is believed (10 requests, 1 key), as
// in PerIP.
func TestAttackRealIPWithoutExtractor(t *testing.T) {
	t.Parallel()
	key := echolimit.RealIP(echo.New())
	keys := map[string]bool{}
	for i := range 10 {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = "203.0.113.9:4000"
		client := "198.51.100." + strconv.Itoa(i)
		if i%2 == 0 {
			r.Header.Set("X-Forwarded-For", client)
		} else {
			r.Header.Set("X-Real-IP", client)
		}
		k, err := key(r)
		require.NoError(t, err)
		keys[k] = true
	}
	assert.Equal(t, map[string]bool{"203.0.113.9/32": true}, keys)
}
