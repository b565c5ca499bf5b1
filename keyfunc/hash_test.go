package keyfunc

import (
	"context"
	"math/rand/v2"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	headerKeyRE = regexp.MustCompile(`^header:[0-9a-f]{32}$`)
	userKeyRE   = regexp.MustCompile(`^user:[0-9a-f]{32}$`)
)

func TestHeader(t *testing.T) {
	f := Header("x-api-key")
	tests := []struct {
		name string
		hdr  []string
		ok   bool
	}{
		{"present", []string{"X-Api-Key", "k-123"}, true},
		{"missing", nil, false},
		{"other header", []string{"Authorization", "k-123"}, false},
		{"empty", []string{"X-Api-Key", ""}, false},
		{"blank", []string{"X-Api-Key", " \t "}, false},
		{"two lines", []string{"X-Api-Key", "a", "X-Api-Key", "b"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f(newReq("192.0.2.1:1", tt.hdr...))
			if !tt.ok {
				require.ErrorIs(t, err, ErrNoKey)
				assert.Empty(t, got)
				return
			}
			require.NoError(t, err)
			assert.Regexp(t, headerKeyRE, got)
		})
	}

	key := func(f Func, hdr ...string) string {
		k, err := f(newReq("192.0.2.1:1", hdr...))
		require.NoError(t, err)
		return k
	}
	a := key(f, "X-Api-Key", "k-123")
	assert.Equal(t, a, key(f, "X-Api-Key", "k-123"), "deterministic")
	assert.Equal(t, a, key(Header("X-API-KEY"), "X-Api-Key", "k-123"), "name is canonical")
	assert.Equal(t, a, key(f, "X-Api-Key", " k-123\t"), "value is trimmed")
	assert.NotEqual(t, a, key(f, "X-Api-Key", "k-124"))
	assert.NotEqual(t, a, key(Header("Authorization"), "Authorization", "k-123"), "name is hashed")
	user := User(func(*http.Request) (string, bool) { return "k-123", true })
	assert.NotEqual(t, a, key(user), "domains are separate")

	// Pinned: changing the hash changes every key in every store.
	// SHA-256("floodgate/keyfunc/v1\x00header\x00X-Api-Key\x00k-123")[:16]
	assert.Equal(t, "header:b4b23ffe26735e97bf623b6edbcf33a6", a)
	// SHA-256("floodgate/keyfunc/v1\x00user\x00\x00alice")[:16]
	assert.Equal(t, "user:58e73b3122fbee0d4ebd91e43a4f47aa", key(User(func(*http.Request) (string, bool) { return "alice", true })))
}

func TestHeaderPanics(t *testing.T) {
	for _, name := range []string{"", "X Api", "X-Api:", "é"} {
		assert.Panics(t, func() { Header(name) }, "%q", name)
	}
}

type ctxKey struct{}

func TestUser(t *testing.T) {
	f := User(func(r *http.Request) (string, bool) {
		u, _, ok := r.BasicAuth()
		return u, ok
	})
	tests := []struct {
		name string
		user string
		set  bool
		ok   bool
	}{
		{"user", "alice", true, true},
		{"empty user", "", true, false},
		{"no auth", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReq("192.0.2.1:1")
			if tt.set {
				r.SetBasicAuth(tt.user, "pw")
			}
			got, err := f(r)
			if !tt.ok {
				require.ErrorIs(t, err, ErrNoKey)
				assert.Empty(t, got)
				return
			}
			require.NoError(t, err)
			assert.Regexp(t, userKeyRE, got)
			assert.NotContains(t, got, tt.user)
		})
	}
	assert.Panics(t, func() { User(nil) })
}

func TestUserFromContext(t *testing.T) {
	f := UserFromContext(ctxKey{})
	with := func(v any) *http.Request {
		r := newReq("192.0.2.1:1")
		return r.WithContext(context.WithValue(r.Context(), ctxKey{}, v))
	}
	tests := []struct {
		name string
		r    *http.Request
		ok   bool
	}{
		{"string", with("alice"), true},
		{"empty", with(""), false},
		{"not a string", with(42), false},
		{"nil", with(nil), false},
		{"absent", newReq("192.0.2.1:1"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f(tt.r)
			if !tt.ok {
				require.ErrorIs(t, err, ErrNoKey)
				return
			}
			require.NoError(t, err)
			assert.Regexp(t, userKeyRE, got)
		})
	}
	alice, err := f(with("alice"))
	require.NoError(t, err)
	bob, err := f(with("bob"))
	require.NoError(t, err)
	assert.NotEqual(t, alice, bob)
	fromFn, err := User(func(*http.Request) (string, bool) { return "alice", true })(newReq("192.0.2.1:1"))
	require.NoError(t, err)
	assert.Equal(t, alice, fromFn)

	assert.Panics(t, func() { UserFromContext(nil) })
	assert.Panics(t, func() { UserFromContext([]byte("k")) })
}

func TestHashFixedLengthNoRawValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	h := Header("X-Api-Key")
	u := UserFromContext(ctxKey{})
	seen := map[string]string{}
	for i := range 5000 {
		v := "k" + randString(rng, "abcdef0123456789:-_ ", 60) + "z"
		r := newReq("192.0.2.1:1", "X-Api-Key", v)
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, v))
		hk, err := h(r)
		require.NoError(t, err)
		uk, err := u(r)
		require.NoError(t, err)
		require.Len(t, hk, len("header:")+32, "value %d", i)
		require.Len(t, uk, len("user:")+32, "value %d", i)
		require.NotContains(t, hk, v)
		require.NotContains(t, uk, v)
		require.Regexp(t, headerKeyRE, hk)
		require.Regexp(t, userKeyRE, uk)
		if prev, ok := seen[hk]; ok {
			require.Equal(t, prev, v, "collision")
		}
		seen[hk] = v
	}
	// A value that looks like a hash is not passed through either.
	r := newReq("192.0.2.1:1", "X-Api-Key", "0123456789abcdef0123456789abcdef")
	k, err := h(r)
	require.NoError(t, err)
	assert.NotContains(t, k, "0123456789abcdef0123456789abcdef")
}
