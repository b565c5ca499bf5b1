package login

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/require"
)

// BenchmarkAttackDeviceCookieFlood measures the worst a request's device
// cookies cost the guard: a header full of well-formed, unexpired forged
// cookies of the device name, of which maxDeviceCookies are checked.
func BenchmarkAttackDeviceCookieFlood(b *testing.B) {
	ms, err := core.NewMemoryStore(core.MemoryOptions{})
	require.NoError(b, err)
	d, err := newDevices(&DeviceOptions{Secret: bytes.Repeat([]byte{3}, MinDeviceSecret)}, ms, nil)
	require.NoError(b, err)
	r := httptest.NewRequest(http.MethodPost, "/login", nil)
	for i := range 2 * maxDeviceCookies {
		v := make([]byte, payloadLen+macLen)
		binary.BigEndian.PutUint64(v, uint64(fuzzT0.Add(time.Hour).Unix()))
		binary.BigEndian.PutUint64(v[8:], uint64(i))
		r.AddCookie(&http.Cookie{Name: DefaultDeviceCookie, Value: base64.RawURLEncoding.EncodeToString(v)})
	}
	for b.Loop() {
		if d.key(r, "/login", "alice", fuzzT0) != "" {
			b.Fatal("a forged cookie was accepted")
		}
	}
}
