// Package problem writes the RFC 9457 application/problem+json answers of
// the middleware and the login guard.
package problem

import (
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/floodgate-go/floodgate/internal/headerval"
)

// QuotaExceeded is the problem type of an answer to a request over a rate
// limit, registered by draft-ietf-httpapi-ratelimit-headers.
const QuotaExceeded = "https://iana.org/assignments/http-problem-types#quota-exceeded"

// Details is one problem.
type Details struct {
	// Type is the problem type URI; "" leaves it out (about:blank).
	Type   string
	Title  string
	Status int
	Detail string
	// Violated names the limits a request exceeded, as "violated-policies";
	// nil leaves the member out, an empty slice writes [].
	Violated []string
}

// Write answers with d: status d.Status, its JSON body, and the fields
// Content-Type: application/problem+json, Content-Length and
// X-Content-Type-Options: nosniff; with noStore, Cache-Control: no-store
// too. The fields cost one allocation together.
func Write(w http.ResponseWriter, d *Details, noStore bool) {
	bp := bodies.Get().(*[]byte)
	defer bodies.Put(bp)
	body := Append((*bp)[:0], d)
	var digits [20]byte
	n := strconv.AppendInt(digits[:0], int64(len(body)), 10)
	k := 3
	if noStore {
		k = 4
	}
	vals := headerval.New(k, n)
	h := w.Header()
	vals.Set(h, 0, "Content-Type", "application/problem+json")
	vals.Set(h, 1, "Content-Length", vals.Text(0, len(n)))
	vals.Set(h, 2, "X-Content-Type-Options", "nosniff")
	if noStore {
		vals.Set(h, 3, "Cache-Control", "no-store")
	}
	w.WriteHeader(d.Status)
	_, _ = w.Write(body)
	if cap(body) <= 4096 {
		*bp = body
	}
}

// bodies holds the buffers bodies are built in.
var bodies = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// Append appends d's JSON body, and a newline, to b.
func Append(b []byte, d *Details) []byte {
	b = append(b, '{')
	if d.Type != "" {
		b = append(b, `"type":`...)
		b = appendString(b, d.Type)
		b = append(b, ',')
	}
	b = append(b, `"title":`...)
	b = appendString(b, d.Title)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(d.Status), 10)
	b = append(b, `,"detail":`...)
	b = appendString(b, d.Detail)
	if d.Violated != nil {
		b = append(b, `,"violated-policies":[`...)
		for i, n := range d.Violated {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, n)
		}
		b = append(b, ']')
	}
	return append(b, '}', '\n')
}

const hex = "0123456789abcdef"

// appendString appends s as a JSON string, escaping what JSON requires and
// what could be read as HTML; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			b = appendASCII(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, `\u202`...)
			b = append(b, hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// appendASCII appends the ASCII byte c of a JSON string, escaped if need be.
func appendASCII(b []byte, c byte) []byte {
	switch {
	case c == '"' || c == '\\':
		return append(b, '\\', c)
	case c < 0x20 || c == '<' || c == '>' || c == '&':
		return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
	}
	return append(b, c)
}
