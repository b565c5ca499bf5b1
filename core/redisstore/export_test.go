package redisstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/floodgate-go/floodgate/core"
)

// LoadOnTime loads into c's Redis, for tests only, the store's library
// with every decision made as on Redis TIME (ONTIME: settle runs) at the
// instant its caller sends (CallerClock), so that the memory store's
// differential can drive what TIME decides with a clock of its own. A
// store of this version then finds its library loaded and calls it.
func LoadOnTime(ctx context.Context, c redis.Cmdable) error {
	return loadONTIME(ctx, c, "ontime", "ONTIME = true")
}

// LoadMixedTime loads, for tests only, the library deciding as on Redis
// TIME (ONTIME) at the caller's instants of odd µs, and on the caller's
// clock (CallerClock) at the even ones, so that one CallerClock store
// drives both a process on TIME and one on its own clock, each with a
// clock of its own.
func LoadMixedTime(ctx context.Context, c redis.Cmdable) error {
	return loadONTIME(ctx, c, "mixed", "ONTIME = now < 0 or now % 2 == 1")
}

// loadONTIME loads the store's library with every entry point's setting
// of ONTIME replaced by set.
func loadONTIME(ctx context.Context, c redis.Cmdable, name, set string) error {
	sc, err := compile(core.MustPolicy(name, core.Limit{Name: "x", Algorithm: core.GCRA{Rate: core.PerSecond(1)}}))
	if err != nil {
		return err
	}
	// main, take, batch and step's single-key GCRA function: every entry
	// point but gbatch, which decides on TIME only.
	const on, entries = "ONTIME = now < 0", 4
	if n := strings.Count(sc.lib, on); n != entries {
		return fmt.Errorf("redisstore: %d entry points set ONTIME", n)
	}
	return c.FunctionLoad(ctx, strings.ReplaceAll(sc.lib, on, set)).Err()
}
