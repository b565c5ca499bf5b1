package headers

import (
	"encoding/base64"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStrictBase64MatchesTheStandardLibrary: strictBase64 says of every
// string what base64.StdEncoding.Strict says, on random strings of base64
// digits and '=' up to 9 characters, and on every encoding of 0 to 5 bytes.
func TestStrictBase64MatchesTheStandardLibrary(t *testing.T) {
	t.Parallel()
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, rng.IntN(10))
		for i := range b {
			b[i] = digits[rng.IntN(len(digits))]
		}
		_, err := base64.StdEncoding.Strict().DecodeString(string(b))
		require.Equal(t, err == nil, strictBase64(string(b)), "%q", b)
	}
	for n := range 6 {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rng.Uint32())
		}
		require.True(t, strictBase64(base64.StdEncoding.EncodeToString(src)))
	}
	require.False(t, strictBase64("0"), "the fuzzer's input: one digit is no byte")
}
