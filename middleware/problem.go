package middleware

import (
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/floodgate-go/floodgate/core"
)

// ProblemType is the RFC 9457 problem type of a 429 answer, registered by
// draft-ietf-httpapi-ratelimit-headers.
const ProblemType = "https://iana.org/assignments/http-problem-types#quota-exceeded"

// writeDenied writes the default answer to a denial: an RFC 9457 problem
// naming the violated limits in "violated-policies". It is 429 Too Many
// Requests with Retry-After, except for a request whose cost exceeds what a
// limit ever grants at once (RetryAfter core.Never): no wait would let it
// pass, so it is 413 Content Too Large, without Retry-After.
func writeDenied(w http.ResponseWriter, res *core.Result) {
	var buf [core.MaxLimits]core.LimitResult
	var names []string
	var nb [core.MaxLimits]string
	names = nb[:0]
	for _, l := range res.AppendLimits(buf[:0]) {
		if !l.Allowed {
			names = append(names, l.Name)
		}
	}
	if res.RetryAfter == core.Never {
		writeProblem(w, http.StatusRequestEntityTooLarge, "Content Too Large",
			"the request costs more than the rate limit ever grants at once", names)
		return
	}
	writeProblem(w, http.StatusTooManyRequests, "Too Many Requests", "the request exceeds the rate limit", names)
}

// writeProblem writes an application/problem+json answer. A non-nil
// violated adds the quota-exceeded type and "violated-policies".
func writeProblem(w http.ResponseWriter, status int, title, detail string, violated []string) {
	bp := bodyPool.Get().(*[]byte)
	defer bodyPool.Put(bp)
	b := (*bp)[:0]
	b = append(b, '{')
	if violated != nil {
		b = append(b, `"type":"`+ProblemType+`",`...)
	}
	b = append(b, `"title":`...)
	b = appendJSONString(b, title)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `,"detail":`...)
	b = appendJSONString(b, detail)
	if violated != nil {
		b = append(b, `,"violated-policies":[`...)
		for i, n := range violated {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, n)
		}
		b = append(b, ']')
	}
	b = append(b, '}', '\n')
	h := w.Header()
	vals := []string{"application/problem+json", strconv.Itoa(len(b)), "nosniff"} // one allocation
	h["Content-Type"] = vals[0:1:1]
	h["Content-Length"] = vals[1:2:2]
	h["X-Content-Type-Options"] = vals[2:3:3]
	w.WriteHeader(status)
	_, _ = w.Write(b)
	if cap(b) <= 4096 {
		*bp = b
	}
}

// bodyPool holds the buffers problem bodies are built in.
var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// appendJSONString appends s as a JSON string, escaping what JSON requires
// and what could be read as HTML; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(b, `\u202`...)
			b = append(b, hex[r&0xf])
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
