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
	send(w, d.Status, body, noStore)
	if cap(body) <= 4096 {
		*bp = body
	}
}

// Prepared is a problem rendered once, for an answer given again and
// again: its body is written as it was rendered, but for the names of the
// violated limits, when it has them.
type Prepared struct {
	status int
	// head is the body up to its violated-policies member, and tail what
	// follows it: the body is head, the member, tail.
	head, tail []byte
	violated   bool
}

// Prepare renders d; d.Violated says only whether the answers name the
// violated limits (nil for no), its names are those of each answer.
func Prepare(d Details) *Prepared {
	return &Prepared{status: d.Status, head: appendHead(nil, &d), tail: []byte("}\n"), violated: d.Violated != nil}
}

// Write answers with p, naming the violated limits if p has them: see
// [Write]. The body is copied from p for every answer, so that no writer
// ever holds p's own bytes.
func (p *Prepared) Write(w http.ResponseWriter, violated []string, noStore bool) {
	bp := bodies.Get().(*[]byte)
	defer bodies.Put(bp)
	body := append((*bp)[:0], p.head...)
	if p.violated {
		body = appendViolated(body, violated)
	}
	body = append(body, p.tail...)
	send(w, p.status, body, noStore)
	if cap(body) <= 4096 {
		*bp = body
	}
}

// send writes status and body with the fields of a problem.
func send(w http.ResponseWriter, status int, body []byte, noStore bool) {
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
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// bodies holds the buffers bodies are built in.
var bodies = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// Append appends d's JSON body, and a newline, to b.
func Append(b []byte, d *Details) []byte {
	b = appendHead(b, d)
	if d.Violated != nil {
		b = appendViolated(b, d.Violated)
	}
	return append(b, '}', '\n')
}

// appendHead appends d's body up to its detail member, included.
func appendHead(b []byte, d *Details) []byte {
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
	return appendString(b, d.Detail)
}

// appendViolated appends the violated-policies member naming names.
func appendViolated(b []byte, names []string) []byte {
	b = append(b, `,"violated-policies":[`...)
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, n)
	}
	return append(b, ']')
}

const hex = "0123456789abcdef"

// plain tells the bytes a JSON string holds as they are: printable ASCII
// but for the quote, the backslash and what HTML would read.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range []byte(`"\<>&`) {
		t[c] = false
	}
	return t
}()

// appendString appends s as a JSON string, escaping what JSON requires and
// what could be read as HTML; invalid UTF-8 becomes U+FFFD. Runs of plain
// bytes are copied at once.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && plain[s[j]] {
			j++
		}
		b = append(b, s[i:j]...)
		if i = j; i == len(s) {
			break
		}
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
