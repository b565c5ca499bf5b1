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

var fuzzT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// FuzzDeviceCookie checks that no cookie value but the one issued is
// accepted for its username, and that none makes the check panic.
func FuzzDeviceCookie(f *testing.F) {
	ms, err := core.NewMemoryStore(core.MemoryOptions{})
	require.NoError(f, err)
	d, err := newDevices(&DeviceOptions{Secret: bytes.Repeat([]byte{3}, MinDeviceSecret)}, ms, nil)
	require.NoError(f, err)
	// A cookie issued with a fixed nonce, so that every fuzzing process
	// agrees on it.
	b := make([]byte, payloadLen, payloadLen+macLen)
	binary.BigEndian.PutUint64(b, uint64(fuzzT0.Add(time.Hour).Unix()))
	b = append(b, d.mac("/login", "alice", b)...)
	issued := base64.RawURLEncoding.EncodeToString(b)
	r := httptest.NewRequest(http.MethodPost, "/login", nil)
	r.AddCookie(&http.Cookie{Name: DefaultDeviceCookie, Value: issued})
	require.NotEmpty(f, d.key(r, "/login", "alice", fuzzT0))
	f.Add(issued, "alice")
	f.Add(issued, "bob")
	f.Add(issued[:len(issued)-1]+"A", "alice")
	f.Add("", "alice")
	f.Add("AAAA", "alice")
	f.Fuzz(func(t *testing.T, value, name string) {
		r := httptest.NewRequest(http.MethodPost, "/login", nil)
		r.Header.Set("Cookie", DefaultDeviceCookie+"="+value)
		key := d.key(r, "/login", name, fuzzT0)
		if key != "" {
			require.Equal(t, issued, value)
			require.Equal(t, "alice", name)
		}
	})
}
