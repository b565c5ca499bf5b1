package headers_test

import (
	"net/http"

	"github.com/floodgate-go/floodgate/headers"
)

// fuzzOmits are the fields bits 1 to 6 of a fuzz input's options byte
// omit, one each.
var fuzzOmits = [...]headers.Field{headers.RetryAfter, headers.XRateLimit, headers.RateLimitPolicy,
	headers.RateLimit, headers.RateLimitRemaining, headers.RateLimitReset}

// singleFields are the single fields, in the order of their bits.
var singleFields = [...]headers.Field{headers.RetryAfter, headers.XRateLimitLimit, headers.XRateLimitRemaining,
	headers.XRateLimitReset, headers.RateLimitPolicy, headers.RateLimit, headers.RateLimitLimit,
	headers.RateLimitRemaining, headers.RateLimitReset}

// fuzzOptions sets the Omit and Names of opts from x, the bits of a fuzz
// input its draft leaves: bit 0 renames every field ("Fz-" and its
// default name), bits 1 to 6 omit fuzzOmits.
func fuzzOptions(opts *headers.Options, x uint8) {
	if x&1 != 0 {
		opts.Names = map[headers.Field]string{}
		for _, f := range singleFields {
			opts.Names[f] = "Fz-" + f.String()
		}
	}
	for i, f := range fuzzOmits {
		if x&(2<<i) != 0 {
			opts.Omit |= f
		}
	}
}

// defaultNamed returns the fields of h named as opts names them, under
// their default names, and those not renamed as they are: what checkValid
// and fieldInt read.
func defaultNamed(h http.Header, opts *headers.Options) http.Header {
	if opts.Names == nil {
		return h
	}
	back := map[string]string{}
	for f, n := range opts.Names {
		back[http.CanonicalHeaderKey(n)] = http.CanonicalHeaderKey(f.String())
	}
	out := http.Header{}
	for name, vs := range h {
		if d, ok := back[name]; ok {
			name = d
		}
		out[name] = vs
	}
	return out
}
