package keyfunc

import (
	"net/http/httptest"
	"testing"
)

// benchPeer: the key of a request from addr with 8 header fields, none a
// forwarding header: a private peer checks them all on every request.
func benchPeer(b *testing.B, addr string) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = addr
	for _, h := range []string{"Accept", "User-Agent", "Accept-Encoding", "Accept-Language", "Cookie", "Referer", "Connection", "Cache-Control"} {
		r.Header.Set(h, "x")
	}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = defaultIP.appendKey(buf[:0], r)
	}
}

func BenchmarkHintPublicPeer(b *testing.B)   { benchPeer(b, "203.0.113.5:1234") }
func BenchmarkHintPrivatePeer(b *testing.B)  { benchPeer(b, "10.1.2.3:1234") }
func BenchmarkHintPrivatePeer6(b *testing.B) { benchPeer(b, "[fd00::1]:1234") }
