package echolimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echo's extractors name a link-local peer with its zone ("fe80::1%eth0"):
// RealIP refused it as no key (403, every link-local client locked out).
// It is keyed by its link, as PerIP keys it.
func TestRealIPLinkLocalPeer(t *testing.T) {
	t.Parallel()
	for _, ex := range []echo.IPExtractor{nil, echo.ExtractIPDirect(), echo.ExtractIPFromXFFHeader(), echo.ExtractIPFromRealIPHeader()} {
		e := echo.New()
		e.IPExtractor = ex
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = "[fe80::1%eth0]:1234"
		k, err := echolimit.RealIP(e)(r)
		require.NoError(t, err)
		assert.Equal(t, "fe80::%eth0/64", k)
	}
}
