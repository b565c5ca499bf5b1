//go:build floodgate_redis

// floodgate's Redis scenario, built only with -tags floodgate_redis once
// core/redisstore exists on the branch (run.sh adds the tag by itself when
// ../core/redisstore is there).

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
