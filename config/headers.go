package config

import (
	"fmt"
	"strings"

	"github.com/floodgate-go/floodgate/headers"
	"go.yaml.in/yaml/v3"
)

// headerFields are the header fields the headers section can omit, by the
// names it gives them.
var headerFields = map[string]headers.Field{
	"retry-after":           headers.RetryAfter,
	"x-ratelimit":           headers.XRateLimit,
	"x-ratelimit-limit":     headers.XRateLimitLimit,
	"x-ratelimit-remaining": headers.XRateLimitRemaining,
	"x-ratelimit-reset":     headers.XRateLimitReset,
	"ietf":                  headers.IETF,
	"ratelimit-policy":      headers.RateLimitPolicy,
	"ratelimit":             headers.RateLimit,
	"ratelimit-limit":       headers.RateLimitLimit,
	"ratelimit-remaining":   headers.RateLimitRemaining,
	"ratelimit-reset":       headers.RateLimitReset,
}

// headerDrafts are the IETF drafts the headers section can choose.
var headerDrafts = map[string]headers.Draft{
	"11": headers.DraftIETF11,
	"7":  headers.DraftIETF7,
	"6":  headers.DraftIETF6,
}

// headers builds the header writer of the headers section n.
func (b *builder) headers(n *yaml.Node) *headers.Writer {
	fs, ok := b.mapping(n, "headers", "omit", "draft")
	if !ok {
		return nil
	}
	var o headers.Options
	draft := "11"
	if f, ok := fs["draft"]; ok {
		draft, _ = b.word(f.val, "headers.draft", "11", "7", "6")
		o.Draft = headerDrafts[draft]
	}
	if f, ok := fs["omit"]; ok {
		// The fields the draft writes: a field of another draft, omitted,
		// would omit nothing.
		written := headers.AllFields
		if w, err := headers.New(headers.Options{Draft: o.Draft}); err == nil {
			written = w.Fields()
		}
		omit, nodes, _ := b.strs(f.val, "headers.omit")
		for i, s := range omit {
			field, known := headerFields[strings.ToLower(s)]
			switch {
			case !known:
				b.errorf(nodes[i], "headers.omit: unknown field %q: want retry-after, x-ratelimit (or -limit, -remaining, -reset), ietf, ratelimit-policy, ratelimit (drafts 11 and 7), ratelimit-limit, -remaining, -reset (draft 6)", clip(s))
				continue
			case field&written == 0:
				b.errorf(nodes[i], "headers.omit: %s: draft %s writes no such field", clip(s), draft)
				continue
			}
			o.Omit |= field
		}
	}
	w, err := headers.New(o)
	if err != nil {
		b.fail(n, fmt.Errorf("headers: %w", err))
		return nil
	}
	return w
}
