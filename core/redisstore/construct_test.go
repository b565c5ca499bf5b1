package redisstore_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
)

// New and Bind refuse nil, typed-nil and zero essentials with an error
// wrapping core.ErrInvalidConfig instead of panicking at the first
// decision. None of these cases reaches a server.
func TestConstructorsRefuseNilAndZero(t *testing.T) {
	t.Parallel()
	p := core.MustPolicy("p", core.Limit{Algorithm: core.GCRA{Rate: core.PerSecond(1)}})
	for name, build := range map[string]func() error{
		"New(nil)":                    func() error { _, err := redisstore.New(nil, redisstore.Options{}); return err },
		"New(typed nil *Client)":      func() error { _, err := redisstore.New((*redis.Client)(nil), redisstore.Options{}); return err },
		"New(typed nil *Cluster)":     func() error { _, err := redisstore.New((*redis.ClusterClient)(nil), redisstore.Options{}); return err },
		"zero Store, Bind":            func() error { _, err := new(redisstore.Store).Bind(p); return err },
		"nil *Store, Bind":            func() error { _, err := (*redisstore.Store)(nil).Bind(p); return err },
		"ScalePolicy(nil)":            func() error { _, err := redisstore.ScalePolicy(nil, 0.5); return err },
		"ScalePolicy(zero)":           func() error { _, err := redisstore.ScalePolicy(&core.Policy{}, 0.5); return err },
		"Supports(nil)":               func() error { return redisstore.Supports(nil) },
		"NewLimiter(zero Store)":      func() error { _, err := core.NewLimiter(p, core.WithStore(new(redisstore.Store))); return err },
		"NewLimiter(typed nil Store)": func() error { _, err := core.NewLimiter(p, core.WithStore((*redisstore.Store)(nil))); return err },
	} {
		assert.ErrorIs(t, build(), core.ErrInvalidConfig, name)
	}
}
