package headers

import "fmt"

// Draft selects the shape of the IETF rate-limit fields, after a revision of
// draft-ietf-httpapi-ratelimit-headers. The zero Draft is [DraftIETF11].
type Draft uint8

const (
	// DraftIETF11 is draft 11 (the shape of drafts 8 to 11): one item per
	// limit, named by an sf-string, in two Structured Field lists.
	//
	//	RateLimit-Policy: "burst";q=10;w=6, "daily";q=1000;w=86400
	//	RateLimit: "burst";r=9;t=1, "daily";r=999;t=87
	DraftIETF11 Draft = iota
	// DraftIETF7 is draft 7: a RateLimit dictionary for the binding limit
	// and a RateLimit-Policy list of integer items, one per limit.
	//
	//	RateLimit-Policy: 10;w=6, 1000;w=86400
	//	RateLimit: limit=10, remaining=9, reset=1
	DraftIETF7
	// DraftIETF6 is draft 6: one integer field each for the binding limit's
	// limit, remaining and reset, and the RateLimit-Policy list of draft 7.
	//
	//	RateLimit-Policy: 10;w=6, 1000;w=86400
	//	RateLimit-Limit: 10
	//	RateLimit-Remaining: 9
	//	RateLimit-Reset: 1
	DraftIETF6
)

// String returns the draft's name, e.g. "draft-ietf-httpapi-ratelimit-headers-11".
func (d Draft) String() string {
	switch d {
	case DraftIETF11:
		return "draft-ietf-httpapi-ratelimit-headers-11"
	case DraftIETF7:
		return "draft-ietf-httpapi-ratelimit-headers-07"
	case DraftIETF6:
		return "draft-ietf-httpapi-ratelimit-headers-06"
	}
	return fmt.Sprintf("Draft(%d)", uint8(d))
}

// fields returns the IETF fields draft d writes.
func (d Draft) fields() Field {
	if d == DraftIETF6 {
		return RateLimitPolicy | RateLimitLimit | RateLimitRemaining | RateLimitReset
	}
	return RateLimitPolicy | RateLimit
}
