package headers_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// New refuses every unusable option with an error wrapping
// core.ErrInvalidConfig, and a nil Writer writes nothing instead of
// panicking at request time.
func TestNewRefusesBadOptions(t *testing.T) {
	for name, o := range map[string]headers.Options{
		"unknown draft":         {Draft: 9},
		"unknown omitted field": {Omit: 1 << 14},
		"name of a field set":   {Names: map[headers.Field]string{headers.XRateLimit: "X"}},
		"name of no field":      {Names: map[headers.Field]string{0: "X"}},
		"invalid name":          {Names: map[headers.Field]string{headers.RetryAfter: "Retry After"}},
		"two fields, one name":  {Names: map[headers.Field]string{headers.XRateLimitLimit: "X-RateLimit-Remaining"}},
		"empty secret":          {PartitionKeySecret: []byte{}},
		"short secret":          {PartitionKeySecret: []byte("short")},
		"secret with old draft": {Draft: headers.DraftIETF7, PartitionKeySecret: make([]byte, 32)},
	} {
		_, err := headers.New(o)
		assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
	}
	var w *headers.Writer
	h := http.Header{}
	lim, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Algorithm: core.GCRA{Rate: core.PerHour(1)}}))
	require.NoError(t, err)
	r, err := lim.AllowN(context.Background(), "k", 1)
	require.NoError(t, err)
	assert.NotPanics(t, func() { w.Write(h, &r); w.WriteKey(h, &r, "k") })
	assert.Empty(t, h)
}
