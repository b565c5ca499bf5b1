// floodgate's Redis scenario: the store of core/redisstore behind the
// same wrapper as the peers' Redis stores.

package benchmarks

import (
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
		return &floodgateAllower{l}
	}}}, redisLibraries...)
}
