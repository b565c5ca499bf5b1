// floodgate's Redis scenario: the store of core/redisstore behind the
// same wrapper as the peers' Redis stores.

package benchmarks

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
)

func init() {
	redisLibraries = append([]redisLibrary{{"floodgate", func(b *testing.B, c *redis.Client, s spec) allower {
		st, err := redisstore.New(c, redisstore.Options{Prefix: "floodgate:"})
		must(err)
		b.Cleanup(func() { _ = st.Close() })
		p, err := core.Single("bench", gcraOf(s))
		must(err)
		l, err := core.NewLimiter(p, core.WithStore(st))
		must(err)
		return &redisFloodgateAllower{l: l}
	}}}, redisLibraries...)
}

// redisFloodgateAllower is floodgateAllower counting failed decisions (a
// missed deadline, Redis unreachable: fail-closed errors).
type redisFloodgateAllower struct {
	errs
	l *core.Limiter
}

func (f *redisFloodgateAllower) Allow(key string) bool {
	res, err := f.l.Allow(context.Background(), key)
	if err != nil {
		f.n.Add(1)
		return false
	}
	return res.Allowed
}
