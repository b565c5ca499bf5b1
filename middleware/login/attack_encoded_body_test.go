package login_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decompress is a request-decompression middleware, as echo's Decompress
// or gin-contrib/gzip's DecompressFn are: it gives the handler the decoded
// body of a gzip-encoded request.
func decompress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, "bad gzip", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(zr)
			r.Header.Del("Content-Encoding")
		}
		next.ServeHTTP(w, r)
	})
}

// decoyGzip returns a gzip body whose decoded form names user and pass,
// and whose raw bytes, read as a form, name decoy: the gzip header's
// comment holds "&username=decoy&z=". It tries paddings of the form until
// the compressed bytes hold nothing url.ParseQuery refuses, as an attacker
// would.
func decoyGzip(t testing.TB, user, pass, decoy string) []byte {
	t.Helper()
	for pad := range 1000 {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Comment = "&username=" + decoy + "&z="
		_, err := zw.Write([]byte(url.Values{"username": {user}, "password": {pass}, "pad": {fmt.Sprint(pad)}}.Encode()))
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		if vals, err := url.ParseQuery(b.String()); err == nil && len(vals["username"]) == 1 && vals.Get("username") == decoy {
			return b.Bytes()
		}
	}
	t.Fatal("no padding gives a body that parses as a form")
	return nil
}

// TestAttackEncodedBodyNamesAnotherUser: the guard read the username from
// the body's bytes as sent, while a decompression middleware inside it
// gave the login handler the decoded body. A gzip body whose header
// comment reads, as a form, "&username=decoyN" and whose content names
// alice was counted on decoyN's account while alice's password was
// checked: 50 of 50 guesses from 50 addresses reached the check, where
// the account limit allows 6. A body with a Content-Encoding is now
// refused (415): the guard cannot know whether a layer after it decodes.
func TestAttackEncodedBodyNamesAnotherUser(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{})
	a := &app{}
	h := g.Handler(decompress(a))
	const guesses = 50
	codes := map[int]int{}
	for i := range guesses {
		body := decoyGzip(t, "alice", fmt.Sprintf("guess%d", i), fmt.Sprintf("decoy%d", i))
		r := httptest.NewRequest(http.MethodPost, "/login", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Content-Encoding", "gzip")
		r.RemoteAddr = addr(i)
		codes[serve(h, r).Code]++
	}
	// DefaultAccount: 5 free failures and the one that sets the first
	// lock, the clock standing still.
	assert.LessOrEqual(t, a.checks.Load(), int64(6),
		"credential checks of alice's password despite the account limit (codes %v)", codes)
}

// TestEncodedBodyRefused: every Content-Encoding but identity is refused
// with 415 before the handler runs, in any case and among several; an
// identity encoding is read as no encoding.
func TestEncodedBodyRefused(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{})
	for _, tc := range []struct {
		enc  []string
		want int
	}{
		{[]string{"gzip"}, http.StatusUnsupportedMediaType},
		{[]string{"GZIP"}, http.StatusUnsupportedMediaType},
		{[]string{"deflate"}, http.StatusUnsupportedMediaType},
		{[]string{"br"}, http.StatusUnsupportedMediaType},
		{[]string{"identity, gzip"}, http.StatusUnsupportedMediaType},
		{[]string{"identity", "gzip"}, http.StatusUnsupportedMediaType},
		{[]string{"x-made-up"}, http.StatusUnsupportedMediaType},
		{[]string{""}, http.StatusUnauthorized},
		{[]string{"identity"}, http.StatusUnauthorized},
		{[]string{" Identity "}, http.StatusUnauthorized},
	} {
		t.Run(strings.Join(tc.enc, "|"), func(t *testing.T) {
			a := &app{}
			r := formRequest("bob", "wrong", "192.0.2.1:1234")
			r.Header["Content-Encoding"] = tc.enc
			w := serve(g.Handler(a), r)
			assert.Equal(t, tc.want, w.Code, w.Body.String())
			if tc.want == http.StatusUnsupportedMediaType {
				assert.Zero(t, a.checks.Load(), "the handler ran")
				assert.Contains(t, w.Body.String(), "Content-Encoding")
			}
		})
	}
}
