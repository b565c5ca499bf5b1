package localfirst_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
)

// TestAttackReturnedKeyKeepsItsNote: through a Redis outage, three keys
// take turns on a store of MaxKeys 1 (one indexed, one in the limbo): each
// key's return drops another from the limbo, noted with what it counted,
// and the returning key decides on its note (denied). But the entry a
// returning key gets holds nothing but the note, and once evicted into the
// limbo the next round dropped it there as an entry with nothing to push,
// the note with it: the key returned as new, its limit whole again, 15
// admitted of a window of 5 in five periods. A round that drops an entry
// whose note still holds now notes the key again.
func TestAttackReturnedKeyKeepsItsNote(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("note", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 5, Window: time.Hour}})
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { _ = down.Close() })
	n := newNodes(t, down, clk, p, 1, localfirst.Options{MaxKeys: 1, Timeout: time.Second})[0]
	per := map[int]int{}
	for range 5 {
		for k := range 3 {
			per[k] += takeAll(t, n, fmt.Sprint("k", k), 10)
		}
		_ = n.s.Sync(context.Background()) // Redis unreachable: fails
		clk.Advance(time.Second)
	}
	for k, got := range per {
		assert.LessOrEqual(t, got, 5, "key k%d admitted %d of a window of 5", k, got)
	}
}
