package localfirst_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTwoNodesShareThenConverge walks two nodes through the cycle: stale
// views hold each node to its share, a round makes them agree, fresh views
// over-admit within one period's admissions of the other node.
func TestTwoNodesShareThenConverge(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("api", core.Limit{Name: "api", Algorithm: core.FixedWindow{Quota: 100, Window: time.Minute}})
	ns := newNodes(t, client, clk, p, 2, localfirst.Options{})
	a, b := ns[0], ns[1]

	// No round has read the key: each node holds at most its half.
	assert.Equal(t, 50, takeAll(t, a, "k", 200))
	r, err := a.l.Allow(context.Background(), "k")
	require.NoError(t, err)
	assert.False(t, r.Allowed)
	assert.Equal(t, 100*time.Millisecond, r.RetryAfter, "a share denial is retried after a round")
	assert.Equal(t, 50, takeAll(t, b, "k", 200))
	syncAll(t, ns)
	syncAll(t, ns)
	for _, n := range ns {
		r, err := n.l.Peek(context.Background(), "k", 1)
		require.NoError(t, err)
		assert.False(t, r.Allowed)
		assert.Equal(t, int64(0), r.Remaining)
		assert.Equal(t, time.Minute, r.RetryAfter)
	}

	// The next window: both views are fresh (the key is tracked), and both
	// nodes admitted in the previous window: each claims half of the
	// remainder.
	clk.Advance(time.Minute)
	syncAll(t, ns)
	assert.Equal(t, 50, takeAll(t, a, "k", 200))
	assert.Equal(t, 50, takeAll(t, b, "k", 200))
	syncAll(t, ns)
	syncAll(t, ns)
	for _, n := range ns {
		assert.Zero(t, takeAll(t, n, "k", 1))
	}

	// A window in which only a decides the key: b, which still tracks it
	// (it decided it within Track rounds), still counts as a sharer.
	clk.Advance(time.Minute)
	syncAll(t, ns)
	assert.Equal(t, 50, takeAll(t, a, "k", 200))
	assert.Equal(t, 50, takeAll(t, b, "k", 200))
}

// TestLoneNodeGetsTheWholeLimit: a node alone on a key (a client pinned to
// one node) claims a share of what remains at every round while it has no
// history, and the whole remainder from the next window on.
func TestLoneNodeGetsTheWholeLimit(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("lone", core.Limit{Name: "lone", Algorithm: core.FixedWindow{Quota: 100, Window: time.Minute}})
	a := newNodes(t, client, clk, p, 2, localfirst.Options{Prefix: "lone:"})[0]
	got := 0
	for _, want := range []int{50, 25, 12, 6} { // ⌊remainder/2⌋: no evidence of being alone
		n := takeAll(t, a, "k", 200)
		assert.Equal(t, want, n)
		got += n
		require.NoError(t, a.s.Sync(context.Background()))
	}
	clk.Advance(time.Minute)
	require.NoError(t, a.s.Sync(context.Background()))
	assert.Equal(t, 100, takeAll(t, a, "k", 200), "alone in the previous window: the whole limit")
}

// TestFreshSharesFollowTheActiveNodes: a node claims what it knows
// remains split among the nodes seen admitting in the window or the
// previous one (all Nodes without that history), so nodes that burst
// together within one period admit the limit.
func TestFreshSharesFollowTheActiveNodes(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("f", core.Limit{Name: "f", Algorithm: core.FixedWindow{Quota: 120, Window: time.Minute}})
	ns := newNodes(t, client, clk, p, 4, localfirst.Options{Prefix: "fresh:"})
	// No history: a quarter of what remains each.
	for _, n := range ns[:3] {
		assert.Equal(t, 1, takeAll(t, n, "k", 1))
	}
	syncAll(t, ns)
	syncAll(t, ns)
	for i, n := range ns[:3] {
		assert.Equal(t, 29, takeAll(t, n, "k", 200), "node %d: ⌊117/4⌋", i)
	}
	syncAll(t, ns)

	// The next window: three nodes were seen in the previous one, each
	// claims a third. The key is new to the fourth (a stale view, nothing
	// read): a quarter of the 120 it knows of, all of it over-admission.
	clk.Advance(time.Minute)
	syncAll(t, ns)
	total := 0
	for i, n := range ns {
		got := takeAll(t, n, "k", 200)
		assert.Equal(t, []int{40, 40, 40, 30}[i], got, "node %d", i)
		total += got
	}
	assert.Equal(t, 120+30, total)
	syncAll(t, ns)
	syncAll(t, ns)
	for _, n := range ns {
		assert.Zero(t, takeAll(t, n, "k", 1))
	}
}

// TestOverAdmissionWithinBound drives four nodes through random schedules
// of one sync period each (every node's rounds in a random order) and
// checks every window against the documented bound: at most
// Limit + (Nodes − 1) × A, where A is the most one node admitted in one
// period of the window (the views are then at most one period stale), and
// at least Limit when the demand exceeds it (FixedWindow; every window the
// run covers whole).
func TestOverAdmissionWithinBound(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	const nodes, periods = 4, 250
	period := 100 * time.Millisecond
	for _, alg := range []core.Algorithm{
		core.FixedWindow{Quota: 60, Window: 2 * time.Second},
		core.SlidingWindow{Quota: 60, Window: 2 * time.Second},
	} {
		for _, load := range []string{"steady", "bursty"} {
			t.Run(fmt.Sprintf("%T/%s", alg, load), func(t *testing.T) {
				clk := coretest.NewClock(t0)
				p := core.MustPolicy("p", core.Limit{Name: "p", Algorithm: alg})
				ns := newNodes(t, client, clk, p, nodes, localfirst.Options{Prefix: fmt.Sprintf("bound:%T:%s:", alg, load)})
				rng := rand.New(rand.NewPCG(3, uint64(len(load))))
				window := int64(2 * time.Second)
				perWindow := map[int64]int{}
				maxPeriod := map[int64]int{} // per window: the most one node admitted in one period
				for i := 0; i < periods; i++ {
					w := clk.Now().UnixNano() / window
					for _, n := range ns {
						tries := 1 + rng.IntN(3)
						if load == "bursty" {
							tries = 0
							if rng.IntN(8) == 0 {
								tries = 10 + rng.IntN(40)
							}
						}
						got := takeAll(t, n, "k", tries)
						perWindow[w] += got
						maxPeriod[w] = max(maxPeriod[w], got)
					}
					for _, j := range rng.Perm(nodes) {
						require.NoError(t, ns[j].s.Sync(context.Background()))
					}
					clk.Advance(period)
				}
				fw, fixed := alg.(core.FixedWindow)
				last := clk.Now().UnixNano() / window // the window the run ends in, half way
				for w, got := range perWindow {
					bound := 60 + (nodes-1)*maxPeriod[w]
					assert.LessOrEqual(t, got, bound, "window %d: admitted %d, bound %d", w, got, bound)
					if fixed && load == "steady" && w > perWindowFirst(perWindow) && w < last {
						assert.GreaterOrEqual(t, got, int(fw.Quota), "window %d: demand exceeds the limit", w)
					}
				}
			})
		}
	}
}

func perWindowFirst(m map[int64]int) int64 {
	first := int64(1 << 62)
	for w := range m {
		first = min(first, w)
	}
	return first
}

// TestKeysExpire: every hash a round writes has a TTL: a window's, its
// end (two for a SlidingWindow, whose counts serve as the previous
// window's) plus the slack; a bucket's, the end of the span after its own
// plus the slack. No field or key names a raw key.
func TestKeysExpire(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("three",
		core.Limit{Name: "s", Algorithm: core.SlidingWindow{Quota: 5, Window: 10 * time.Second}},
		core.Limit{Name: "m", Algorithm: core.FixedWindow{Quota: 50, Window: time.Minute}},
		core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerSecond(10)}})
	n := newNodes(t, client, clk, p, 1, localfirst.Options{Prefix: "ttl:"})[0]
	for i := 0; i < 20; i++ {
		_, err := n.l.Allow(context.Background(), fmt.Sprint("key", i))
		require.NoError(t, err)
	}
	require.NoError(t, n.s.Sync(context.Background()))
	keys, err := client.Keys(context.Background(), "ttl:*").Result()
	require.NoError(t, err)
	slack := 2*localfirst.DefaultSyncPeriod + localfirst.MaxTimeout
	buckets := 0
	for _, k := range keys {
		ttl, err := client.PTTL(context.Background(), k).Result()
		require.NoError(t, err)
		assert.Greater(t, ttl, time.Duration(0), k)
		if strings.Contains(k, "}:b") {
			buckets++
			assert.LessOrEqual(t, ttl, 2*time.Minute+slack, k, "the next span's end plus the slack")
		} else {
			assert.LessOrEqual(t, ttl, time.Minute+slack, k, "the window's end plus the slack")
		}
		assert.NotContains(t, k, "key", "no raw key reaches Redis")
		fields, err := client.HKeys(context.Background(), k).Result()
		require.NoError(t, err)
		for _, f := range fields {
			assert.NotContains(t, f, "key", "no raw key reaches Redis")
		}
	}
	assert.Equal(t, 1, buckets, "the GCRA's span")
	assert.Len(t, keys, 3, "the sliding window's current window (its previous one only read), the fixed window's, the GCRA's span")
}

// TestResetReachesOtherNodes: a reset deletes the counters in Redis; the
// other nodes read the key afresh at their next round.
func TestResetReachesOtherNodes(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("r", core.Limit{Name: "r", Algorithm: core.FixedWindow{Quota: 10, Window: time.Minute}})
	ns := newNodes(t, client, clk, p, 2, localfirst.Options{Prefix: "reset:"})
	assert.Equal(t, 5, takeAll(t, ns[0], "k", 10))
	syncAll(t, ns)
	assert.Equal(t, 5, takeAll(t, ns[1], "k", 10))
	syncAll(t, ns)
	require.NoError(t, ns[0].l.Reset(context.Background(), "k"))
	syncAll(t, ns)
	for _, n := range ns {
		r, err := n.l.Peek(context.Background(), "k", 1)
		require.NoError(t, err)
		assert.Equal(t, int64(9), r.Remaining)
	}
}

// TestRefundReachesOtherNodes: a refund on one node gives the units back
// fleet-wide at the next rounds.
func TestRefundReachesOtherNodes(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("f", core.Limit{Name: "f", Algorithm: core.SlidingWindow{Quota: 10, Window: time.Minute}})
	ns := newNodes(t, client, clk, p, 2, localfirst.Options{Prefix: "refund:"})
	ctx := context.Background()
	var taken []core.Result
	for i := 0; i < 4; i++ {
		r, err := ns[0].l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, r.Allowed)
		taken = append(taken, r)
	}
	syncAll(t, ns)
	_, err := ns[1].l.Peek(ctx, "k", 1) // the key is new on b: track it
	require.NoError(t, err)
	assert.Equal(t, 1, takeAll(t, ns[1], "k", 1))
	syncAll(t, ns)
	for _, r := range taken[:3] {
		_, err := ns[0].l.Refund(ctx, "k", r)
		require.NoError(t, err)
	}
	syncAll(t, ns)
	for _, n := range ns {
		r, err := n.l.Peek(ctx, "k", 1)
		require.NoError(t, err)
		assert.Equal(t, int64(7), r.Remaining, "10 − (4 + 1 − 3), less the peek's unit")
	}
}

// TestEvictedUnitsArePushed: a key evicted from a full table still has its
// units pushed at the next round, of a window and of a bucket.
func TestEvictedUnitsArePushed(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	for _, alg := range []core.Algorithm{
		core.FixedWindow{Quota: 10, Window: time.Minute},
		core.GCRA{Rate: core.PerMinute(10)},
	} {
		t.Run(fmt.Sprintf("%T", alg), func(t *testing.T) {
			clk := coretest.NewClock(t0)
			p := core.MustPolicy("e", core.Limit{Name: "e", Algorithm: alg})
			prefix := fmt.Sprintf("evict:%T:", alg)
			small := newNodes(t, client, clk, p, 1, localfirst.Options{Prefix: prefix, MaxKeys: 1})[0]
			assert.Equal(t, 3, takeAll(t, small, "a", 3))
			assert.Equal(t, 1, takeAll(t, small, "b", 1)) // evicts a
			require.NoError(t, small.s.Sync(context.Background()))
			other := newNodes(t, client, clk, p, 1, localfirst.Options{Prefix: prefix})[0]
			_, err := other.l.Peek(context.Background(), "a", 1)
			require.NoError(t, err)
			assert.Equal(t, 1, takeAll(t, other, "a", 1))
			require.NoError(t, other.s.Sync(context.Background()))
			r, err := other.l.Peek(context.Background(), "a", 1)
			require.NoError(t, err)
			assert.Equal(t, int64(5), r.Remaining, "10 − (3 + 1), less the peek's unit")
		})
	}
}

// TestRunSyncsOnStop: Run ends with a round, so what a node admitted
// reaches Redis when it stops.
func TestRunSyncsOnStop(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("run", core.Limit{Name: "run", Algorithm: core.FixedWindow{Quota: 10, Window: time.Minute}})
	ns := newNodes(t, client, clk, p, 1, localfirst.Options{Prefix: "run:"})
	assert.Equal(t, 4, takeAll(t, ns[0], "k", 4))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ns[0].s.Run(ctx)
	assert.GreaterOrEqual(t, ns[0].s.Stats().Rounds, uint64(1))
	// Another node reads the 4 units at its first round (once the stopped
	// node's claim has lapsed).
	clk.Advance(2*localfirst.DefaultSyncPeriod + localfirst.MaxTimeout)
	other := newNodes(t, client, clk, p, 1, localfirst.Options{Prefix: "run:"})[0]
	assert.Equal(t, 1, takeAll(t, other, "k", 1))
	require.NoError(t, other.s.Sync(context.Background()))
	r, err := other.l.Peek(context.Background(), "k", 1)
	require.NoError(t, err)
	assert.Equal(t, int64(10-5-1), r.Remaining)
}

// TestClaimsHoldTheLimit: once the nodes sharing a hot key are known (they
// registered in the previous window), nodes taking all they can between
// rounds, whatever the order of their rounds, admit the limit and no more:
// a key a node used up its share of in the previous window is claimed at
// the new window's first round, each node spends only what it claimed,
// and the claims never add up beyond what remains.
func TestClaimsHoldTheLimit(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	for _, alg := range []core.Algorithm{
		core.FixedWindow{Quota: 1000, Window: time.Minute},
		core.SlidingWindow{Quota: 1000, Window: time.Minute},
	} {
		t.Run(fmt.Sprintf("%T", alg), func(t *testing.T) {
			clk := coretest.NewClock(t0)
			p := core.MustPolicy("hot", core.Limit{Name: "hot", Algorithm: alg})
			ns := newNodes(t, client, clk, p, 4, localfirst.Options{Prefix: fmt.Sprintf("claims:%T:", alg)})
			for _, n := range ns {
				assert.Equal(t, 250, takeAll(t, n, "k", 250), "no claim yet: a quarter each")
			}
			syncAll(t, ns)
			syncAll(t, ns)
			// The next window; a SlidingWindow's previous one still weighs
			// its last second: ⌈1000 × (60 − e)/60⌉ units at e seconds in.
			clk.Advance(time.Minute)
			weighs := func() int { return 0 }
			if _, ok := alg.(core.SlidingWindow); ok {
				clk.Advance(59 * time.Second)
				weighs = func() int {
					rest := int64(t0.Add(2 * time.Minute).Sub(clk.Now())) // to the end of the window
					return int((1000*rest + int64(time.Minute) - 1) / int64(time.Minute))
				}
			}
			room := 1000 - weighs()
			rng := rand.New(rand.NewPCG(5, 6))
			total := 0
			for round := 0; round < 12; round++ {
				for _, j := range rng.Perm(len(ns)) {
					require.NoError(t, ns[j].s.Sync(context.Background()))
					total += takeAll(t, ns[j], "k", 2000)
				}
				clk.Advance(10 * time.Millisecond)
			}
			clk.Advance(-10 * time.Millisecond)
			assert.LessOrEqual(t, total+weighs(), 1000)
			assert.GreaterOrEqual(t, total, room-10, "the claims hand out nearly all of the room")
		})
	}
}
