package keyfunc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"

	"github.com/floodgate-go/floodgate/internal/httpsyntax"
	"github.com/floodgate-go/floodgate/internal/same"
)

// hashDomain separates the hashes of this package from any other use of
// SHA-256 over the same values.
const hashDomain = "floodgate/keyfunc/v1"

// hashLen is the number of SHA-256 bytes kept: 128 bits, 32 hex digits.
const hashLen = 16

// hashKey returns label + ":" + the first hashLen bytes, in hex, of
// SHA-256(hashDomain NUL label NUL scope NUL value). label and scope never
// hold a NUL and value comes last, so distinct (label, scope, value) triples
// are hashed as distinct byte strings.
func hashKey(label, scope, value string) string {
	b := make([]byte, 0, len(hashDomain)+len(label)+len(scope)+len(value)+3)
	b = append(b, hashDomain...)
	b = append(b, 0)
	b = append(b, label...)
	b = append(b, 0)
	b = append(b, scope...)
	b = append(b, 0)
	b = append(b, value...)
	sum := sha256.Sum256(b)
	return label + ":" + hex.EncodeToString(sum[:hashLen])
}

// hostHeader is the header net/http takes out of every request it reads,
// into Request.Host; hostMoved says so in errors.
const (
	hostHeader = "Host"
	hostMoved  = "net/http moves it out of Request.Header into Request.Host, so that no request has it"
)

// Header returns a Func that keys a request by the value of the header name,
// such as an API key, hashed: the key is "header:" and 32 hex digits of a
// SHA-256 over a fixed domain-separation prefix, the canonical header name
// and the value (spaces and tabs around it trimmed). The raw value never
// becomes a key. A header that is missing, empty, or sent on more than one
// line gives an error wrapping [ErrNoKey].
//
// The client writes the header: every new value is a new key, with a
// budget of its own. Key by Header only where the value is checked (an API
// key the service issued, verified before the limit, so that a request
// with a made-up key never reaches this limit), and key the requests
// without a valid key by client IP ([First] with a [User] Func that looks
// the key up, then a [ClientIP] Func; middleware.APIKeyOrIP). [Join]ed with
// a ClientIP Func the header bounds nothing: one address sending a new
// value with each request still gets a new key, and a budget, each time.
//
// Header panics if name is not a valid header name, or is Host, which
// net/http moves out of the header into Request.Host: no request would
// have a key.
func Header(name string) Func {
	if !httpsyntax.IsToken(name) {
		panic(fmt.Errorf("keyfunc: Header: invalid header name %q: %w", name, ErrInvalidOptions))
	}
	name = http.CanonicalHeaderKey(name)
	if name == hostHeader {
		panic(fmt.Errorf("keyfunc: Header: %s: %s: %w", name, hostMoved, ErrInvalidOptions))
	}
	return func(r *http.Request) (string, error) {
		vals := r.Header.Values(name)
		switch {
		case len(vals) == 0:
			return "", fmt.Errorf("keyfunc: header %s is missing: %w", name, ErrNoKey)
		case len(vals) > 1:
			return "", fmt.Errorf("keyfunc: header %s is sent %d times: %w", name, len(vals), ErrNoKey)
		}
		v := trimOWS(vals[0])
		if v == "" {
			return "", fmt.Errorf("keyfunc: header %s is empty: %w", name, ErrNoKey)
		}
		return hashKey("header", name, v), nil
	}
}

// User returns a Func that keys a request by the user name fn finds in it,
// hashed like [Header]'s values: the key is "user:" and 32 hex digits. When fn
// reports false or an empty name, the Func returns an error wrapping
// [ErrNoKey].
//
// User panics if fn is nil.
func User(fn func(r *http.Request) (string, bool)) Func {
	if fn == nil {
		panic(fmt.Errorf("keyfunc: User: nil function: %w", ErrInvalidOptions))
	}
	return func(r *http.Request) (string, error) {
		name, ok := fn(r)
		if !ok || name == "" {
			return "", fmt.Errorf("keyfunc: no user name: %w", ErrNoKey)
		}
		return hashKey("user", "", name), nil
	}
}

// UserFromContext returns a [User] Func reading the user name from the
// request context's value for key, which must be a non-empty string.
//
// UserFromContext panics if key is nil or not comparable, like
// context.WithValue.
func UserFromContext(key any) Func {
	if key == nil {
		panic(fmt.Errorf("keyfunc: UserFromContext: nil key: %w", ErrInvalidOptions))
	}
	if !same.Comparable(key) {
		panic(fmt.Errorf("keyfunc: UserFromContext: key %T is not comparable: %w", key, ErrInvalidOptions))
	}
	return User(func(r *http.Request) (string, bool) {
		s, ok := r.Context().Value(key).(string)
		return s, ok
	})
}
