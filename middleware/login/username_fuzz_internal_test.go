package login

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzGuardReadsTheHandlersUsername checks that whenever the guard reads
// a username from a body, the handlers written the common ways read that
// same username or none: net/http's ParseForm, a JSON decoder that ignores
// Content-Type (gin's ShouldBindJSON, a plain json.Decoder), and a form
// binder that matches names up to case where the exact one is missing
// (echo's Bind), and binders matching names as encoding/json/v2's
// `case:ignore` does (up to case, '-' and '_'), the last of them winning
// (jsontext.AllowDuplicateNames); and that the body is given back to the
// handler whole.
func FuzzGuardReadsTheHandlersUsername(f *testing.F) {
	form, js := "application/x-www-form-urlencoded", "application/json"
	for _, seed := range [][3]string{
		{form, "", "username=alice&password=x"},
		{form, "", `{"username":"alice","x":"&username=decoy"}`},
		{form, "", "username=decoy&USERNAME=alice"},
		{form, "", "Username=alice"},
		{form, "", "username=a&username=b"},
		{form, "", "null&username=decoy"},
		{form, "gzip", "\x1f\x8b\x08\x10&username=decoy&z=\x00"},
		{form, "identity", "username=alice"},
		{js, "", `{"username":"alice","password":"x"}`},
		{js, "", `{"username":"decoy","USERNAME":"alice"}`},
		{js, "", `{"username":"decoy","user_name":"alice"}`},
		{js, "", `{"USER-NAME":"alice"}`},
		{form, "", "username=decoy&user_name=alice"},
		{js, "", `{"u\u017fername":"alice"}`},
		{js, "", `{"username":"alice"} {"username":"decoy"}`},
		{js, "", `{"username":"\ud800alice"}`},
		{js, "", "\ufeff{\"username\":\"alice\"}"},
		{js + "; charset=utf-8", "", `{"\u0075sername":"alice"}`},
		{"text/plain", "", "username=alice"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	const field = "username"
	f.Fuzz(func(t *testing.T, ct, enc, body string) {
		r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body))
		r.Header.Set("Content-Type", ct)
		if enc != "" {
			r.Header.Set("Content-Encoding", enc)
		}
		name, err := readUsername(r, field, DefaultMaxBody)
		if err != nil || name == "" {
			return
		}
		require.False(t, encoded(r.Header), "an encoded body was read")
		given := new(bytes.Buffer)
		_, err = given.ReadFrom(r.Body)
		require.NoError(t, err)
		require.Equal(t, body, given.String(), "the body given back")

		// net/http's form parsing.
		h := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body))
		h.Header.Set("Content-Type", ct)
		if h.ParseForm() == nil && len(h.PostForm[field]) > 0 {
			require.Equal(t, []string{name}, h.PostForm[field], "ParseForm of %q", body)
		}
		// A binder matching names up to case when the exact one is missing.
		if h.PostForm[field] == nil {
			for k, v := range h.PostForm {
				if strings.EqualFold(k, field) && len(v) > 0 {
					require.Equal(t, name, v[0], "a case-insensitive binder of %q", body)
				}
			}
		}
		// Binders matching names as encoding/json/v2 does, the last wins.
		if h.PostForm != nil {
			for _, kv := range strings.Split(body, "&") {
				k, v, _ := strings.Cut(kv, "=")
				k, err1 := url.QueryUnescape(k)
				v, err2 := url.QueryUnescape(v)
				if err1 == nil && err2 == nil && v2Name(k) == field && v != "" {
					require.Equal(t, name, v, "a v2-style form binder of %q", body)
				}
			}
		}
		if v, ok := lastV2Member(body, field); ok && v != "" {
			require.Equal(t, name, v, "a v2-style JSON binder of %q", body)
		}
		// A JSON decoder reading the body whatever its Content-Type.
		var req struct {
			Username string `json:"username"`
		}
		if json.NewDecoder(strings.NewReader(body)).Decode(&req) == nil && req.Username != "" {
			require.Equal(t, name, req.Username, "a JSON handler of %q", body)
		}
	})
}

// v2Name is encoding/json/v2's folding of a member name under `case:ignore`:
// case, '-' and '_' ignored.
func v2Name(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

// lastV2Member returns the string value of the last member of the JSON
// object body whose name matches field as encoding/json/v2's `case:ignore`
// does; false when body is no such object.
func lastV2Member(body, field string) (string, bool) {
	d := json.NewDecoder(strings.NewReader(body))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	var last string
	found := false
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return "", false
		}
		var v json.RawMessage
		if d.Decode(&v) != nil {
			return "", false
		}
		var str string
		if k, _ := t.(string); v2Name(k) == field && json.Unmarshal(v, &str) == nil {
			last, found = str, true
		}
	}
	return last, found
}
