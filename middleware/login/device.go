package login

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"net/http"
	"net/url"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/routepath"
)

// KindDevice is the key kind of a device cookie's own counter, as passed
// to Options.OnLockout.
const KindDevice = "device"

// DefaultDevice is the per-device limit when DeviceOptions.Limit is nil:
// the same as [DefaultAccount], so that a device's own stream is throttled
// like an account's.
var DefaultDevice = DefaultAccount

// DefaultDeviceCookie and DefaultDeviceTTL are the cookie name and lifetime
// when DeviceOptions.Name and DeviceOptions.TTL are zero.
const (
	DefaultDeviceCookie = "floodgate_device"
	DefaultDeviceTTL    = 30 * 24 * time.Hour
)

// MinDeviceSecret is the shortest DeviceOptions.Secret, in bytes.
const MinDeviceSecret = 32

// DeviceOptions turns on device cookies, the standard defence against
// lockout as denial of service (OWASP's "device cookies"). After a
// successful login the guard issues a cookie, signed with Secret (HMAC-
// SHA256), bound to the username exactly as it was submitted (not to its
// normalized form: usernames the application keeps apart may normalize
// alike, and a cookie earned by one must not open another's device path)
// and valid for TTL. An attempt that submits the same username, byte for
// byte, with a valid cookie for it is judged on that device's
// own counter (Limit) only, apart from the anonymous stream: an attacker
// who floods the account with wrong passwords, from anywhere, locks the
// account's and the networks' counters, never the device's, so the user
// still gets in from a device they logged in from before.
//
// A cookie is also bound to the login page it was issued at (the URL path
// the client sent, cleaned, without a trailing slash): one guard, or guards
// sharing a Secret, may serve login pages whose users are apart (the
// tenants of a service at "/t/{tenant}/login", a staff page beside a
// customers' one), and a cookie an attacker earns by logging in to an
// account of their own at one page must not open the device path of the
// same username at another. A login page served at several paths has a
// cookie for each; tenants told apart by host name need a Secret each.
//
// A cookie that is forged, expired, signed with another secret, or issued for
// another username or another spelling of it, or at another login page,
// counts as no cookie: the attempt joins the anonymous stream (account and
// network counters).
//
// The trade-off: a stolen cookie gives its thief that device's budget of
// guesses (Limit, per cookie, on top of the anonymous stream's), until it
// expires; the anonymous stream stays throttled as without cookies.
// Device attempts are not counted on the network key either, so a network
// locked by an attacker sharing the user's address does not lock the
// user's device out. A device locked by its own failures stays locked
// (it never falls back to the anonymous stream); clearing the cookie puts
// it back there.
//
// Trust is given to a cookie, never to an address that logged in before:
// addresses are shared (NAT, carriers, proxies), so an attacker behind the
// user's address would inherit it.
type DeviceOptions struct {
	// Secret is the HMAC key signing the cookies: at least MinDeviceSecret
	// random bytes, the same on every instance, kept secret. Changing it
	// invalidates every cookie issued. [New] refuses a shorter one, and
	// one of zero bytes only (make([]byte, 32) without crypto/rand.Read):
	// with a key anyone knows, anyone signs cookies, each a device budget
	// of guesses counted on no account.
	Secret []byte
	// Name is the cookie's name; "" means DefaultDeviceCookie.
	Name string
	// TTL is how long a cookie stays valid; 0 means DefaultDeviceTTL.
	TTL time.Duration
	// Limit limits the failures of one device (one cookie) on its
	// account; nil means DefaultDevice.
	Limit core.Algorithm
	// Insecure issues the cookie without the Secure attribute, for
	// development over plain HTTP only.
	Insecure bool
}

// deviceDomain separates the device cookie's MAC from any other use of
// the secret.
const deviceDomain = "floodgate/login/device/v2"

const (
	nonceLen   = 16
	payloadLen = 8 + nonceLen // expiry (Unix seconds, big-endian), nonce
	macLen     = sha256.Size
)

// cookieLen is the length of a well-formed cookie value.
var cookieLen = base64.RawURLEncoding.EncodedLen(payloadLen + macLen)

// devices issues and checks device cookies.
type devices struct {
	secret   []byte
	name     string
	ttl      time.Duration
	insecure bool
	limit    *core.Limiter
}

func newDevices(o *DeviceOptions, store core.Store, clk core.Clock) (*devices, error) {
	if len(o.Secret) < MinDeviceSecret {
		return nil, fmt.Errorf("login: device secret of %d bytes, want at least %d: %w", len(o.Secret), MinDeviceSecret, core.ErrInvalidConfig)
	}
	if allZero(o.Secret) {
		// make([]byte, 32) whose crypto/rand.Read was forgotten: a key
		// everyone knows, with which anyone signs cookies.
		return nil, fmt.Errorf("login: device secret of %d zero bytes (a buffer whose crypto/rand.Read was forgotten?): "+
			"anyone could sign device cookies; want at least %d random bytes: %w", len(o.Secret), MinDeviceSecret, core.ErrInvalidConfig)
	}
	if o.TTL < 0 {
		return nil, fmt.Errorf("login: device TTL %v is negative: %w", o.TTL, core.ErrInvalidConfig)
	}
	d := &devices{secret: append([]byte(nil), o.Secret...), name: o.Name, ttl: o.TTL, insecure: o.Insecure}
	if d.name == "" {
		d.name = DefaultDeviceCookie
	}
	if !validCookieName(d.name) {
		return nil, fmt.Errorf("login: device cookie name %q: %w", d.name, core.ErrInvalidConfig)
	}
	if d.ttl == 0 {
		d.ttl = DefaultDeviceTTL
	}
	lim := o.Limit
	if lim == nil {
		lim = DefaultDevice
	}
	var err error
	if d.limit, err = limiter(KindDevice, lim, store, clk); err != nil {
		return nil, err
	}
	return d, nil
}

// allZero reports whether every byte of b is zero.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func validCookieName(s string) bool {
	c := &http.Cookie{Name: s, Value: "x"}
	return c.Valid() == nil
}

// mac returns the MAC of payload for the username name at the login page
// page (see [loginPage]).
func (d *devices) mac(page, name string, payload []byte) []byte {
	return macWith(hmac.New(sha256.New, d.secret), page, name, payload, nil)
}

// macWith appends to dst the MAC of payload for name at page computed
// with m, an HMAC keyed by the secret, which it resets first: one HMAC
// serves every cookie of a request. page is written after its length, and
// name is followed by the fixed-length payload, so that distinct (page,
// name, payload) triples are distinct inputs.
func macWith(m hash.Hash, page, name string, payload, dst []byte) []byte {
	m.Reset()
	m.Write([]byte(deviceDomain))
	m.Write([]byte{0})
	m.Write(binary.BigEndian.AppendUint64(nil, uint64(len(page))))
	m.Write([]byte(page))
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(dst)
}

// issue returns a new cookie for name at the login page page, valid until
// now + TTL.
func (d *devices) issue(page, name string, now time.Time) *http.Cookie {
	b := make([]byte, payloadLen, payloadLen+macLen)
	exp := now.Add(d.ttl)
	binary.BigEndian.PutUint64(b, uint64(exp.Unix()))
	_, _ = rand.Read(b[8:payloadLen]) // crypto/rand.Read never fails
	b = append(b, d.mac(page, name, b)...)
	return &http.Cookie{
		Name:     d.name,
		Value:    base64.RawURLEncoding.EncodeToString(b),
		Path:     "/",
		Expires:  exp,
		MaxAge:   int(d.ttl / time.Second),
		Secure:   !d.insecure,
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
	}
}

// maxDeviceCookies bounds the MACs one request may make the guard check:
// the cookies of the device name that are well formed and unexpired (the
// others are skipped at no cost). It is above what a browser keeps for one
// domain (180 cookies in Chrome and Firefox), so that an attacker who can
// plant cookies in the user's browser (a sibling subdomain's Domain
// cookies, sent first for a longer Path) cannot hide the genuine one
// behind forged ones; checking them costs at most a few hundred
// microseconds.
const maxDeviceCookies = 256

// key returns the device counter's key of the first valid cookie of r for
// name at the login page page, or "" when r carries none: a cookie that is
// malformed, forged, expired or bound to another username or another login
// page is no cookie.
func (d *devices) key(r *http.Request, page, name string, now time.Time) string {
	var m hash.Hash
	var sum [macLen]byte
	n := 0
	for _, c := range r.CookiesNamed(d.name) {
		if len(c.Value) != cookieLen {
			continue
		}
		b, err := base64.RawURLEncoding.Strict().DecodeString(c.Value)
		if err != nil || len(b) != payloadLen+macLen {
			continue
		}
		payload := b[:payloadLen]
		exp := binary.BigEndian.Uint64(payload)
		if exp > uint64(1<<62) || !now.Before(time.Unix(int64(exp), 0)) {
			continue
		}
		if n++; n > maxDeviceCookies {
			break
		}
		if m == nil {
			m = hmac.New(sha256.New, d.secret)
		}
		if !hmac.Equal(b[payloadLen:], macWith(m, page, name, payload, sum[:0])) {
			continue
		}
		// The counter is keyed by the nonce and the username, hashed: the
		// key never holds the username, and one cookie is one counter.
		h := sha256.New()
		h.Write([]byte(deviceDomain + "/key"))
		h.Write([]byte{0})
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write(payload[8:])
		return KindDevice + ":" + hex.EncodeToString(h.Sum(nil)[:16])
	}
	return ""
}

// loginPage returns the login page a device cookie is bound to: the path
// of r as the client sent it (before a middleware such as
// http.StripPrefix rewrote r.URL.Path), cleaned, without a trailing slash.
func loginPage(r *http.Request) string {
	p := ""
	if u, err := url.ParseRequestURI(r.RequestURI); err == nil {
		p = u.Path
	} else if r.URL != nil {
		p = r.URL.Path
	}
	if p == "" {
		return ""
	}
	return trimSlash(routepath.Clean(p))
}
