package login_test

import (
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forgedCookie returns a device cookie of the right shape (length,
// encoding, an expiry in the future) whose MAC is made up: what an
// attacker who can set cookies for the site's domain (a sibling
// subdomain: cookie tossing) plants in a victim's browser.
func forgedCookie(name string, i int, exp time.Time) *http.Cookie {
	b := make([]byte, 8+16+32)
	binary.BigEndian.PutUint64(b, uint64(exp.Unix()))
	binary.BigEndian.PutUint64(b[8:], uint64(i))
	binary.BigEndian.PutUint64(b[24:], uint64(i)*0x9e3779b97f4a7c15)
	return &http.Cookie{Name: name, Value: base64.RawURLEncoding.EncodeToString(b)}
}

// An attacker who locks alice's account and plants forged device cookies
// in her browser (from a sibling subdomain, with a longer Path so that
// the browser sends them first) must not push her genuine cookie out of
// the guard's sight: before, the guard checked only the first 4 cookies of
// the name, so 4 forged ones put alice back on the locked anonymous
// stream (429). A browser keeps at most 180 cookies per domain; with 179
// forged ones in front, alice's cookie is still found.
func TestAttackForgedCookiesShadowDevice(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := deviceGuard(t, clk, login.DeviceOptions{})
	h := g.Handler(&app{})
	good := loginCookie(t, h, "alice", "secret", "192.0.2.1:1")
	for i := range 1000 {
		serve(h, formRequest("alice", "guess", addr(i)))
	}
	require.Equal(t, http.StatusTooManyRequests, serve(h, formRequest("alice", "secret", "192.0.2.1:1")).Code)
	for _, n := range []int{4, 16, 179} {
		r := formRequest("alice", "secret", "192.0.2.1:1")
		for i := range n {
			r.AddCookie(forgedCookie(good.Name, i, t0.Add(time.Hour)))
		}
		r.AddCookie(good)
		w := serve(h, r)
		assert.Equal(t, http.StatusOK, w.Code, "%d forged cookies in front of the genuine one", n)
		if c := w.Result().Cookies(); assert.Len(t, c, 1) {
			good = c[0] // the renewed cookie
		}
	}
}
