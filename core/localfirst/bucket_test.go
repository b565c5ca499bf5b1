package localfirst_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buckets are the bucket limits the tests run: 100 a second, a burst of 20.
var buckets = []core.Algorithm{
	core.GCRA{Rate: core.PerSecond(100), Burst: 20},
	core.TokenBucket{Rate: core.PerSecond(100), Burst: 20},
}

// TestBucketOneNodeDecidesAsMemory: a single node (Nodes 1) whose rounds
// have not run decides every take, peek and refund of a GCRA as the
// in-memory store, and of a token bucket with the same admissions and
// Remaining (its ResetAfter and RetryAfter within a nanosecond).
func TestBucketOneNodeDecidesAsMemory(t *testing.T) {
	_, client := startRedis(t)
	for _, alg := range []core.Algorithm{
		core.GCRA{Rate: core.PerSecond(7), Burst: 5},
		core.TokenBucket{Rate: core.PerSecond(3), Burst: 5},
		core.TokenBucket{Rate: core.Per(2, 5*time.Second), Burst: 3},
	} {
		t.Run(fmt.Sprint(alg), func(t *testing.T) {
			p := core.MustPolicy("b", core.Limit{Name: "b", Algorithm: alg}, core.Limit{Name: "w", Algorithm: core.SlidingWindow{Quota: 9, Window: 10 * time.Second}})
			clk := coretest.NewClock(t0)
			n := newNodes(t, client, clk, p, 1, localfirst.Options{Prefix: "bdiff:"})[0]
			ms, err := core.NewMemoryStore(core.MemoryOptions{})
			require.NoError(t, err)
			ref, err := core.NewLimiter(p, core.WithStore(ms), core.WithClock(clk))
			require.NoError(t, err)
			_, exact := alg.(core.GCRA)
			same := func(step int, what string, want, got core.Result) {
				t.Helper()
				w, g := want.Limits(), got.Limits()
				require.Len(t, g, len(w))
				for i := range w {
					if !exact {
						require.InDelta(t, int64(w[i].RetryAfter), int64(g[i].RetryAfter), 1, "step %d %s limit %d", step, what, i)
						require.InDelta(t, int64(w[i].ResetAfter), int64(g[i].ResetAfter), 1, "step %d %s limit %d", step, what, i)
						w[i].RetryAfter, w[i].ResetAfter = g[i].RetryAfter, g[i].ResetAfter
					}
				}
				require.Equal(t, w, g, "step %d %s", step, what)
			}
			differential(t, n, ref, clk, 7, time.Second, false, same)
		})
	}
}

// TestLeasesHoldTheRate: four nodes take all they can of one bucket key,
// every period, rounds in a random order: once every node holds a lease
// the fleet admits the rate, and in no interval more than the burst, the
// rate over the interval and over a lease's life (one period here: a
// round replaces each lease) and what the nodes admitted without a lease
// (their first units, a quarter of the burst each).
func TestLeasesHoldTheRate(t *testing.T) {
	_, client := startRedis(t)
	const nodes, periods, burst, rate = 4, 60, 20, 100
	period := 100 * time.Millisecond
	for _, alg := range buckets {
		t.Run(fmt.Sprintf("%T", alg), func(t *testing.T) {
			clk := coretest.NewClock(t0)
			p := core.MustPolicy("hot", core.Limit{Name: "hot", Algorithm: alg})
			ns := newNodes(t, client, clk, p, nodes, localfirst.Options{Prefix: fmt.Sprintf("lease:%T:", alg)})
			rng := rand.New(rand.NewPCG(9, 10))
			got := make([]int, periods)
			for i := range got {
				for _, j := range rng.Perm(nodes) {
					got[i] += takeAll(t, ns[j], "k", 1000)
				}
				for _, j := range rng.Perm(nodes) {
					require.NoError(t, ns[j].s.Sync(context.Background()))
				}
				clk.Advance(period)
			}
			unleased := nodes * (burst / nodes)
			for i := range got {
				sum := 0
				for j := i; j < periods; j++ {
					sum += got[j]
					ideal := burst + (j-i)*rate/10
					assert.LessOrEqual(t, sum, ideal+rate/10+unleased, "periods %d–%d", i, j)
				}
			}
			steady := 0
			for _, n := range got[10:] {
				steady += n
			}
			assert.InDelta(t, (periods-10)*rate/10, steady, rate/10, "the rate, once the leases flow: %v", got)
		})
	}
}

// TestBucketOverAdmissionWithinBound drives four nodes through random
// steady and bursty schedules of one bucket key (rounds every period, in a
// random order) and checks every interval against the documented bound:
// the burst, the rate over the interval and a lease's life, and what each
// node may admit without a lease (the burst and a period's rate over k =
// Nodes, per node).
func TestBucketOverAdmissionWithinBound(t *testing.T) {
	_, client := startRedis(t)
	const nodes, periods, burst, rate = 4, 200, 20, 100
	period := 100 * time.Millisecond
	for _, alg := range buckets {
		for _, load := range []string{"steady", "bursty"} {
			t.Run(fmt.Sprintf("%T/%s", alg, load), func(t *testing.T) {
				clk := coretest.NewClock(t0)
				p := core.MustPolicy("p", core.Limit{Name: "p", Algorithm: alg})
				ns := newNodes(t, client, clk, p, nodes, localfirst.Options{Prefix: fmt.Sprintf("bbound:%T:%s:", alg, load)})
				rng := rand.New(rand.NewPCG(11, uint64(len(load))))
				got := make([]int, periods)
				for i := range got {
					for _, j := range rng.Perm(nodes) {
						tries := rng.IntN(6)
						if load == "bursty" {
							tries = 0
							if rng.IntN(8) == 0 {
								tries = 10 + rng.IntN(40)
							}
						}
						got[i] += takeAll(t, ns[j], "k", tries)
					}
					for _, j := range rng.Perm(nodes) {
						require.NoError(t, ns[j].s.Sync(context.Background()))
					}
					clk.Advance(period)
				}
				// a: the most a node admits without a lease before a round
				// pushes it, ⌊burst/k⌋ + ⌈rate·period/k⌉ with k = nodes.
				a := burst/nodes + (rate/10+nodes-1)/nodes
				for i := range got {
					sum := 0
					for j := i; j < periods; j++ {
						sum += got[j]
						bound := burst + (j-i+1)*rate/10 + nodes*a
						require.LessOrEqual(t, sum, bound, "periods %d–%d", i, j)
					}
				}
			})
		}
	}
}

// TestBucketOutage cuts two nodes sharing a bucket off Redis: each spends
// its live lease, or its share of what it last read (half of it, and half
// of the rate): the fleet admits what remained and the rate, no more; when
// Redis is back, a round pushes what they admitted and the leases flow
// again.
func TestBucketOutage(t *testing.T) {
	for _, alg := range buckets {
		t.Run(fmt.Sprintf("%T", alg), func(t *testing.T) {
			srv, _ := startRedis(t)
			proxy := faultproxy.Start(t, srv.Addr())
			client := newClient(t, proxy.Addr())
			clk := coretest.NewClock(t0)
			p := core.MustPolicy("o", core.Limit{Name: "o", Algorithm: alg})
			ns := newNodes(t, client, clk, p, 2, localfirst.Options{})
			a, b := ns[0], ns[1]
			// Both take their share (10 of the burst of 20): a round
			// pushes them; a period later 10 more have refilled.
			assert.Equal(t, 10, takeAll(t, a, "k", 100))
			assert.Equal(t, 10, takeAll(t, b, "k", 100))
			syncAll(t, ns)
			clk.Advance(100 * time.Millisecond)
			syncAll(t, ns)
			proxy.Refuse(true)
			proxy.Drop()
			first := takeAll(t, a, "k", 100) + takeAll(t, b, "k", 100)
			assert.LessOrEqual(t, first, 10, "what remained")
			assert.GreaterOrEqual(t, first, 5)
			// A second through the outage: each node admits half the rate.
			total := 0
			for i := 0; i < 10; i++ {
				clk.Advance(100 * time.Millisecond)
				for _, n := range ns {
					total += takeAll(t, n, "k", 100)
					require.Error(t, n.s.Sync(context.Background()))
				}
			}
			assert.LessOrEqual(t, total, 100+10-first, "the rate over the second, and what remained")
			assert.GreaterOrEqual(t, total, 80)
			// Redis is back: the units admitted through the outage are
			// charged at the round that pushes them (up to a burst beyond
			// the bucket: the fleet pays it back), then the rate again.
			proxy.Refuse(false)
			after := 0
			for i := 0; i < 20; i++ {
				if i == 10 {
					after = 0
				}
				clk.Advance(100 * time.Millisecond)
				for _, n := range ns {
					after += takeAll(t, n, "k", 100)
				}
				syncAll(t, ns)
			}
			assert.InDelta(t, 100, after, 10, "the rate again")
		})
	}
}
