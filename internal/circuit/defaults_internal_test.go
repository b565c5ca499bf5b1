package circuit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaults(t *testing.T) {
	f, in, mx := 0, time.Duration(0), time.Duration(0)
	require.NoError(t, Defaults(&f, &in, &mx))
	assert.Equal(t, 3, f)
	assert.Equal(t, 100*time.Millisecond, in)
	assert.Equal(t, 800*time.Millisecond, mx)

	f, in, mx = 5, 2*time.Second, 0
	require.NoError(t, Defaults(&f, &in, &mx))
	assert.Equal(t, 5, f, "a set value is kept")
	assert.Equal(t, 2*time.Second, mx, "ProbeMax defaults to ProbeInterval when that is longer")

	for name, c := range map[string]struct {
		f       int
		in, max time.Duration
	}{
		"negative failures": {-1, 0, 0},
		"negative interval": {0, -1, 0},
		"negative max":      {0, 0, -1},
		"max below":         {0, time.Second, time.Millisecond},
	} {
		assert.Error(t, Defaults(&c.f, &c.in, &c.max), name)
	}
}
