package keyfunc

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lit returns a Func that returns s as it is, even when empty.
func lit(s string) Func { return func(*http.Request) (string, error) { return s, nil } }

func fail(err error) Func { return func(*http.Request) (string, error) { return "", err } }

// splitJoined decodes a key made by Join back into its parts.
func splitJoined(k string) ([]string, bool) {
	var parts []string
	for k != "" {
		i := strings.IndexByte(k, ':')
		if i <= 0 {
			return nil, false
		}
		n, err := strconv.Atoi(k[:i])
		if err != nil || n < 0 || n > len(k)-i-1 || strconv.Itoa(n) != k[:i] {
			return nil, false
		}
		parts = append(parts, k[i+1:i+1+n])
		k = k[i+1+n:]
	}
	return parts, len(parts) > 0
}

func joinParts(t testing.TB, parts []string) (string, error) {
	t.Helper()
	fs := make([]Func, len(parts))
	for i, p := range parts {
		fs[i] = lit(p)
	}
	return Join(fs...)(newReq("192.0.2.1:1"))
}

func TestJoin(t *testing.T) {
	tests := []struct {
		parts []string
		want  string
	}{
		{[]string{"a"}, "1:a"},
		{[]string{"a|b", "c"}, "3:a|b1:c"},
		{[]string{"a", "b|c"}, "1:a3:b|c"},
		{[]string{"GET /items/{id}", "198.51.100.7/32"}, "15:GET /items/{id}15:198.51.100.7/32"},
		{[]string{"1:a", "1:b"}, "3:1:a3:1:b"},
		{[]string{"ünï"}, "5:ünï"},
	}
	for _, tt := range tests {
		got, err := joinParts(t, tt.parts)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got)
		back, ok := splitJoined(got)
		require.True(t, ok)
		assert.Equal(t, tt.parts, back)
	}

	ip := mustClientIP(t, IPOptions{})
	k, err := Join(Const("login"), Method, ip)(newReq("198.51.100.7:1"))
	require.NoError(t, err)
	assert.Equal(t, "5:login3:GET15:198.51.100.7/32", k)
}

func TestJoinErrors(t *testing.T) {
	boom := errors.New("boom")
	r := newReq("192.0.2.1:1")

	_, err := Join(Const("a"), fail(boom), Const("b"))(r)
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "part 1")

	_, err = Join(Const("a"), Route)(r)
	require.ErrorIs(t, err, ErrNoKey)

	_, err = Join(Const("a"), lit(""))(r)
	require.ErrorIs(t, err, ErrNoKey, "an empty part is no key")

	assert.Panics(t, func() { Join() })
	assert.Panics(t, func() { Join(Const("a"), nil) })
}

func TestJoinCopiesFuncs(t *testing.T) {
	fs := []Func{Const("a"), Const("b")}
	j := Join(fs...)
	fs[0] = Const("z")
	k, err := j(newReq("192.0.2.1:1"))
	require.NoError(t, err)
	assert.Equal(t, "1:a1:b", k)
}

func TestJoinInjective(t *testing.T) {
	// Parts made of the bytes an encoding could confuse: separators,
	// digits, colons, escapes.
	const alphabet = "ab|:;,0123456789\\%\x00 "
	rng := rand.New(rand.NewPCG(13, 14))
	seen := map[string][]string{}
	for range 20_000 {
		parts := make([]string, 1+rng.IntN(4))
		for i := range parts {
			parts[i] = "x" + randString(rng, alphabet, 6)
			if rng.IntN(2) == 0 {
				parts[i] = parts[i][1:] // may be empty: must then fail
			}
		}
		k, err := joinParts(t, parts)
		if slices.Contains(parts, "") {
			require.ErrorIs(t, err, ErrNoKey)
			continue
		}
		require.NoError(t, err)
		back, ok := splitJoined(k)
		require.True(t, ok, "%q", k)
		require.Equal(t, parts, back)
		if prev, ok := seen[k]; ok {
			require.Equal(t, prev, parts, "two part lists give %q", k)
		}
		seen[k] = parts
	}
}

func TestFirst(t *testing.T) {
	boom := errors.New("boom")
	r := newReq("192.0.2.1:1", "X-Api-Key", "k")

	k, err := First(Route, Const("a"), Const("b"))(r)
	require.NoError(t, err)
	assert.Equal(t, "a", k)

	k, err = First(Header("X-Api-Key"), Const("b"))(r)
	require.NoError(t, err)
	assert.Regexp(t, headerKeyRE, k)

	k, err = First(lit(""), Const("b"))(r)
	require.NoError(t, err)
	assert.Equal(t, "b", k, "an empty key is a failure")

	k, err = First(Route, fail(boom), lit(""))(r)
	require.Error(t, err)
	assert.Empty(t, k)
	require.ErrorIs(t, err, ErrNoKey)
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "boom")

	_, err = First(fail(boom))(r)
	require.ErrorIs(t, err, ErrNoKey, "wraps ErrNoKey even when no part did")

	assert.Panics(t, func() { First() })
	assert.Panics(t, func() { First(nil) })
}
