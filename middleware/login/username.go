package login

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode"
)

// Errors of reading the username from a request body, answered 413, 415
// and 400 by [Guard.Handler].
var (
	errBodyTooLarge     = errors.New("login: request body too large")
	errUnsupportedMedia = errors.New("login: body is neither a form nor JSON")
	errEncodedBody      = errors.New("login: body has a Content-Encoding")
	errBadBody          = errors.New("login: unparseable body")
)

// readUsername returns the value of field in r's body, a form
// (application/x-www-form-urlencoded) or a JSON object, reading at most
// limit bytes and putting the bytes back in r.Body for the handler. A field
// sent more than once, or under another key equal up to case, dashes and
// underscores (see foldName), is refused: the guard and the handler must
// agree on the username; so is a form body that
// is a JSON document, and a body with a Content-Encoding other than
// identity (a decompressing layer after the guard would give the handler
// other bytes than those read here: a gzip header's comment can spell a
// decoy's form).
func readUsername(r *http.Request, field string, limit int64) (string, error) {
	if encoded(r.Header) {
		return "", errEncodedBody
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (mt != "application/x-www-form-urlencoded" && mt != "application/json") {
		return "", errUnsupportedMedia
	}
	if r.Body == nil {
		return "", errBadBody
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return "", errBadBody
	}
	if int64(len(b)) > limit {
		return "", errBodyTooLarge
	}
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(b))
	if mt == "application/json" {
		return jsonField(b, field)
	}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		// A JSON document sent as a form: a handler that decodes JSON
		// whatever the Content-Type (gin's ShouldBindJSON, a plain
		// json.Decoder) reads another username than the form's, as
		// {"username":"alice","x":"&username=decoy"} does. A browser's
		// form never starts so (it encodes '{' and '[').
		return "", errBadBody
	}
	vals, err := url.ParseQuery(string(b))
	if err != nil || len(vals[field]) > 1 {
		return "", errBadBody
	}
	folded := foldName(field)
	for k := range vals {
		// Another spelling of the field's name: a binder matching names
		// up to case where the exact one is missing (echo's Bind), or
		// as encoding/json/v2 does, reads it, where the guard reads none.
		if k != field && foldName(k) == folded {
			return "", errBadBody
		}
	}
	return vals.Get(field), nil
}

// foldName maps a member or field name to the form under which the binders
// a handler may use take two names for one: strings.EqualFold's
// (encoding/json's, echo's form binding's), each code point mapped to the
// least of its simple case-folding orbit ("K", "k" and the Kelvin sign
// alike), and encoding/json/v2's under `case:ignore` or
// MatchCaseInsensitiveNames, which also ignores '-' and '_' ("user_name",
// "USER-NAME" and "username" are one name; with
// jsontext.AllowDuplicateNames the last of them wins).
func foldName(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == '-' || r == '_' {
			continue
		}
		b.WriteRune(leastFold(r))
	}
	return b.String()
}

// leastFold returns the least code point of r's simple case-folding orbit.
func leastFold(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// jsonField returns the string value of field in the JSON object b.
func jsonField(b []byte, field string) (string, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return "", errBadBody
	}
	var name string
	found := false
	folded := foldName(field)
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return "", errBadBody
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return "", errBadBody
		}
		if foldName(key) != folded {
			continue
		}
		if found || json.Unmarshal(v, &name) != nil {
			return "", errBadBody
		}
		found = true
	}
	if t, err := d.Token(); err != nil || t != json.Delim('}') {
		return "", errBadBody
	}
	if _, err := d.Token(); err != io.EOF {
		return "", errBadBody
	}
	return name, nil
}

// encoded reports whether h gives the body a Content-Encoding other than
// identity, in any of its values.
func encoded(h http.Header) bool {
	for _, v := range h.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				return true
			}
		}
	}
	return false
}
