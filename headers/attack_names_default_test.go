package headers_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/stretchr/testify/require"
)

// TestAttackNameOfAnotherFieldsDefault: a Writer could name a field it
// writes as another field's default name, X-RateLimit-Remaining and -Reset
// as "RateLimit-Remaining" and "RateLimit-Reset" (the X- prefix dropped),
// and every reader of the default names (HeldWait, Combine's, Wait, the
// middlewares) read its epoch reset as draft 6's seconds: a draft 11
// Writer combining over its own fields of a spent limit answered a 55 s
// denial with Retry-After 1,767,323,100 (56 years), turning the limiter
// against every client that obeys it. New now refuses such a name for
// any field it writes, of any draft.
func TestAttackNameOfAnotherFieldsDefault(t *testing.T) {
	t.Parallel()
	for _, d := range []headers.Draft{headers.DraftIETF11, headers.DraftIETF7, headers.DraftIETF6} {
		on := newWriter(t, headers.Options{Draft: d}).Fields()
		for _, f := range singleFields {
			for _, g := range singleFields {
				if f == g || on&f == 0 {
					continue
				}
				_, err := headers.New(headers.Options{Draft: d, Names: map[headers.Field]string{f: g.String()}})
				require.ErrorIs(t, err, core.ErrInvalidConfig, "%v: %v named %v", d, f, g)
			}
		}
	}
	// A field's own default name, and another's for a field not written,
	// are no conflict.
	_, err := headers.New(headers.Options{Names: map[headers.Field]string{headers.RateLimit: "ratelimit"}})
	require.NoError(t, err)
	_, err = headers.New(headers.Options{Omit: headers.XRateLimitReset, Names: map[headers.Field]string{headers.XRateLimitReset: "RateLimit-Reset"}})
	require.NoError(t, err)
}
