package chilimit

import (
	"context"
	"crypto/tls"
	"hash/maphash"
	"io"
	"math/bits"
	"mime/multipart"
	"net/http"
	"net/url"
	"reflect"
	"runtime"
	"sync"
	"weak"

	"github.com/floodgate-go/floodgate/internal/charges"
	"github.com/floodgate-go/floodgate/middleware"
)

// uses holds, for each Middleware, what the handlers Limit and LimitMux
// have wrapped with it know of one another (see useState): one Middleware
// mounted twice (one Limit value in a root router's Use and a
// sub-router's, or Limit and LimitMux) may decide a request twice,
// charging it twice in the same buckets. A Middleware is held weakly, its
// state dropped once it is collected (a configuration reloaded makes new
// ones).
var uses sync.Map // weak.Pointer[middleware.Middleware] → *useState

// usesOf returns the state of m's uses.
func usesOf(m *middleware.Middleware) *useState {
	key := weak.Make(m)
	s, loaded := uses.LoadOrStore(key, new(useState))
	if !loaded {
		runtime.AddCleanup(m, func(k weak.Pointer[middleware.Middleware]) { uses.Delete(k) }, key)
	}
	return s.(*useState)
}

// decidedKey is the context key of the decision a Limit or LimitMux
// mounted more than once took for a request.
type decidedKey struct{}

// decision is what a Middleware decided a request by, and the request it
// passed on: a use inside takes the decision for its own only when given
// that very request, unchanged. The buckets a decision charges depend on
// more than the route: the key (a user an authentication middleware
// between the two uses stored in the context, a RemoteAddr chi's RealIP
// rewrote in place, a header, a form value or a body a middleware
// normalised in place), Options.Skip, Options.Cost. A request changed in
// any field a key or cost can read, in place or not, is decided again:
// its context, method, address, host, URL, request URI, protocol, headers
// and trailers, form values, body, length and TLS state.
type decision struct {
	m                *middleware.Middleware
	pattern, methods string
	r                *http.Request   // the request passed on, its context holding the decision
	ctx              context.Context // r's context
	method, addr     string
	host, uri, proto string
	url              url.URL
	header           uint64 // valuesSum of its header
	trailer          uint64 // valuesSum of its trailer
	form             uint64 // valuesSum of its Form, and of its PostForm
	multipart        *multipart.Form
	body             io.ReadCloser
	length           int64
	tls              *tls.ConnectionState
	// charge is what the decision charged (see charges.Decided), or,
	// where it does not say, what it charges told again after it (see
	// charges.Of); charged is false when that could not be told.
	charge  charges.Charge
	charged bool
}

// decidedBefore reports whether m decided r by pattern and methods
// already, mounted outside, r is the request it passed on, unchanged, and
// r charges now what it charged then: r is then not charged again. A key
// may read what chi sets on that very request between the two uses (its
// URL parameters, r.PathValue): one unchanged request, two keys.
func decidedBefore(r *http.Request, m *middleware.Middleware, pattern, methods string, variants variantMark) bool {
	d, _ := r.Context().Value(decidedKey{}).(*decision)
	if d == nil || !d.charged || d.m != m || d.pattern != pattern || d.methods != methods ||
		d.r != r || d.ctx != r.Context() || !d.snapshot(r) {
		return false
	}
	// Told as it is decided (see serve): a request charged on its
	// variant's route too, told without its mark, charged its route
	// alone, another charge, and was decided, charged, twice.
	c, ok := chargeOf(marked(r, variants), m, pattern, methods)
	return ok && charges.Same(d.charge, c)
}

// chargeOf returns what m charges r with by pattern and methods (see
// serve), deciding nothing.
func chargeOf(r *http.Request, m *middleware.Middleware, pattern, methods string) (charges.Charge, bool) {
	saved := r.Pattern
	if methods != "" {
		r.Pattern = methods
	}
	defer func() { r.Pattern = saved }()
	return charges.Of(m, r, pattern)
}

// snapshot reports whether r's fields are those d took (see withDecision).
func (d *decision) snapshot(r *http.Request) bool {
	return d.method == r.Method && d.addr == r.RemoteAddr && d.host == r.Host &&
		d.uri == r.RequestURI && d.proto == r.Proto && r.URL != nil && d.url == *r.URL &&
		d.length == r.ContentLength && d.tls == r.TLS && d.multipart == r.MultipartForm &&
		sameBody(d.body, r.Body) && d.header == valuesSum(r.Header) &&
		d.trailer == valuesSum(r.Trailer) && d.form == formSum(r)
}

// withDecision returns r telling the handlers inside that m decided it by
// pattern and methods, admitting it as a.
func withDecision(r *http.Request, m *middleware.Middleware, pattern, methods string, variants variantMark, a *middleware.Admission) *http.Request {
	if r.URL == nil {
		return r
	}
	// What it charges is told first: a key or cost may put a body read
	// back (r.Body = io.NopCloser(…)), which the request passed on, and
	// the snapshot, must both hold, or the use inside takes it for
	// another request and charges it again.
	// What the decision charged, else told again: the key of every
	// request of a router where m is met twice is not run twice here.
	charge, charged := charges.Decided(a)
	if !charged {
		charge, charged = chargeOf(marked(r, variants), m, pattern, methods)
	}
	d := &decision{
		m: m, pattern: pattern, methods: methods, charge: charge, charged: charged,
		method: r.Method, addr: r.RemoteAddr, host: r.Host, uri: r.RequestURI, proto: r.Proto,
		url: *r.URL, header: valuesSum(r.Header), trailer: valuesSum(r.Trailer), form: formSum(r),
		multipart: r.MultipartForm, body: r.Body, length: r.ContentLength, tls: r.TLS,
	}
	d.ctx = context.WithValue(r.Context(), decidedKey{}, d)
	d.r = r.WithContext(d.ctx)
	return d.r
}

// sameBody reports whether a and b are one body: equal values of one
// comparable type (a body of a type that cannot be compared is taken
// for another).
func sameBody(a, b io.ReadCloser) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	t := reflect.TypeOf(a)
	return t == reflect.TypeOf(b) && t.Comparable() && a == b
}

// formSum returns a sum of r's Form and PostForm, each apart.
func formSum(r *http.Request) uint64 {
	return valuesSum(r.Form) ^ bits.RotateLeft64(valuesSum(r.PostForm), 1)
}

// headerSeed seeds valuesSum.
var headerSeed = maphash.MakeSeed()

// valuesSum returns a sum of h's fields (a header's, a form's), names
// and values, in no order: a field set, changed or removed in place
// changes it.
func valuesSum(h map[string][]string) uint64 {
	var sum uint64
	for name, values := range h {
		var mh maphash.Hash
		mh.SetSeed(headerSeed)
		mh.WriteString(name)
		for _, v := range values {
			mh.WriteByte(0)
			mh.WriteString(v)
		}
		sum += mh.Sum64()
	}
	return sum
}
