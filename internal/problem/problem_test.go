package problem

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/floodgate-go/floodgate/internal/race"
)

func TestAppend(t *testing.T) {
	cases := []struct {
		d    Details
		want string
	}{
		{Details{Title: "Forbidden", Status: 403, Detail: "no key"},
			`{"title":"Forbidden","status":403,"detail":"no key"}` + "\n"},
		{Details{Type: QuotaExceeded, Title: "Too Many Requests", Status: 429, Detail: "over", Violated: []string{"a", "b"}},
			`{"type":"` + QuotaExceeded + `","title":"Too Many Requests","status":429,"detail":"over","violated-policies":["a","b"]}` + "\n"},
		{Details{Type: QuotaExceeded, Title: "T", Status: 429, Detail: "d", Violated: []string{}},
			`{"type":"` + QuotaExceeded + `","title":"T","status":429,"detail":"d","violated-policies":[]}` + "\n"},
		{Details{Type: QuotaExceeded, Title: "T", Status: 429, Detail: "d"},
			`{"type":"` + QuotaExceeded + `","title":"T","status":429,"detail":"d"}` + "\n"},
		// Escapes: JSON's, HTML's, line separators, invalid UTF-8.
		{Details{Title: "a\"b\\c\n<>&\x01", Status: 1, Detail: "é\u2028\u2029\xff"},
			`{"title":"a\"b\\c\u000a\u003c\u003e\u0026\u0001","status":1,"detail":"é\u2028\u2029\ufffd"}` + "\n"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, string(Append(nil, &c.d)))
	}
}

func TestWrite(t *testing.T) {
	d := Details{Title: "Too Many Requests", Status: 429, Detail: "over"}
	for _, noStore := range []bool{false, true} {
		w := httptest.NewRecorder()
		Write(w, &d, noStore)
		want := string(Append(nil, &d))
		assert.Equal(t, 429, w.Code)
		assert.Equal(t, want, w.Body.String())
		h := http.Header{
			"Content-Type":           {"application/problem+json"},
			"Content-Length":         {strconv.Itoa(len(want))},
			"X-Content-Type-Options": {"nosniff"},
		}
		if noStore {
			h["Cache-Control"] = []string{"no-store"}
		}
		assert.Equal(t, h, w.Header())
	}
}

type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}

// The fields cost one allocation; the body is built in a pooled buffer.
func TestWriteAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("the body buffers are pooled")
	}
	d := Details{Type: QuotaExceeded, Title: "Too Many Requests", Status: 429, Detail: "over", Violated: []string{"api"}}
	w := discard{h: http.Header{}}
	for _, noStore := range []bool{false, true} {
		Write(w, &d, noStore)
		assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { Write(w, &d, noStore) }))
	}
}

// A prepared problem writes the body Append writes for the same details.
func TestPrepared(t *testing.T) {
	for _, d := range []Details{
		{Title: "Forbidden", Status: 403, Detail: "no <key>"},
		{Type: QuotaExceeded, Title: "Too Many Requests", Status: 429, Detail: "over", Violated: []string{}},
	} {
		p := Prepare(d)
		for _, names := range [][]string{nil, {}, {"a"}, {"a\"b", "é"}} {
			if d.Violated != nil {
				d.Violated = names
				if d.Violated == nil {
					d.Violated = []string{}
				}
			}
			for _, noStore := range []bool{false, true} {
				want, got := httptest.NewRecorder(), httptest.NewRecorder()
				Write(want, &d, noStore)
				p.Write(got, names, noStore)
				assert.Equal(t, want, got)
			}
		}
	}
	if !race.Enabled {
		p := Prepare(Details{Type: QuotaExceeded, Title: "T", Status: 429, Detail: "d", Violated: []string{}})
		w := discard{h: http.Header{}}
		names := []string{"api"}
		p.Write(w, names, false)
		assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { p.Write(w, names, false) }))
	}
}
