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
	if f, ok := fs["draft"]; ok {
		d, _ := b.word(f.val, "headers.draft", "11", "7", "6")
		o.Draft = headerDrafts[d]
	}
	if f, ok := fs["omit"]; ok {
		omit, nodes, _ := b.strs(f.val, "headers.omit")
		for i, s := range omit {
			field, known := headerFields[strings.ToLower(s)]
			if !known {
				b.errorf(nodes[i], "headers.omit: unknown field %q: want retry-after, x-ratelimit (or -limit, -remaining, -reset), ietf, ratelimit-policy, ratelimit", clip(s))
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
