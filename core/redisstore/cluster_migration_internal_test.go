package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClusterSlotMigration migrates a hash slot from one master of a real
// 3-master Cluster to another (CLUSTER SETSLOT IMPORTING and MIGRATING,
// the keys moved one by one with MIGRATE, then SETSLOT NODE on every
// master) while 8 goroutines decide, through a go-redis ClusterClient, on
// keys of that slot (alone, and coalesced in batch calls) and of others,
// for a policy of one limit and one of two (whose keys, moved one at a
// time, are split between the nodes for a while: TRYAGAIN). The client
// follows the redirections (the source node answered ASK, the target
// served ASKING, and the decisions went on); no key admits more than its
// limit; a decision either is exact or fails (FailClosed, never an
// admission: a multi-key call on keys split between the nodes is refused
// with TRYAGAIN, a fault); afterwards every decision succeeds, and each
// key's state holds at least what it admitted (exactly that when none of
// its decisions failed: no command ran twice). The store never leaves
// Redis: a slot's error replies are its decisions' faults, not the
// store's (the breaker opened at the first TRYAGAIN before, failing every
// decision for a while, and go-redis's Cluster pipelines sent some takes
// twice).
func TestClusterSlotMigration(t *testing.T) {
	cl := redistest.LaunchCluster(t, 3) // it forms while the serial tests run
	t.Parallel()
	cl.Wait(t)
	c := cl.Client(t)
	ctx := context.Background()
	s, err := New(c, Options{Prefix: "mig:", Timeout: 10 * time.Second})
	require.NoError(t, err)
	defer s.Close()
	const limit = 40
	policies := []*core.Policy{
		core.MustPolicy("one", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: limit, Window: time.Hour, Anchored: true}}),
		core.MustPolicy("two",
			core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: limit, Window: time.Hour, Anchored: true}},
			core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerHour(1), Burst: limit}}),
	}
	var limiters []*core.Limiter
	var tables []*table
	for _, p := range policies {
		l, err := core.NewLimiter(p, core.WithStore(s))
		require.NoError(t, err)
		limiters = append(limiters, l)
		tb, err := s.Bind(p) // the same keys as the limiter's table
		require.NoError(t, err)
		tables = append(tables, tb.(*table))
	}
	// Per policy, users whose keys fall in the slot migrated, and a few
	// whose keys fall elsewhere.
	migrated := slot(tables[0].keys("u0", nil)[0])
	users := make([][]string, len(policies))
	for pi, tab := range tables {
		in, out := 0, 0
		for i := 0; in+out < 10; i++ {
			if i >= 10_000_000 { // a bound, never reached
				t.Fatalf("no 7 users in slot %d among 10M", migrated)
			}
			u := fmt.Sprint("u", i)
			if slot(tab.keys(u, nil)[0]) == migrated {
				if in < 7 {
					in++
					users[pi] = append(users[pi], u)
				}
			} else if out < 3 {
				out++
				users[pi] = append(users[pi], u)
			}
		}
	}

	src, dst := slotOwners(t, ctx, c, migrated, cl)
	type count struct{ admitted, failed, decided atomic.Int64 }
	counts := make([][]count, len(policies))
	for i := range counts {
		counts[i] = make([]count, len(users[i]))
	}
	var next atomic.Int64
	decide := func() {
		n := next.Add(1)
		pi := int(n % int64(len(policies)))
		ui := int(n/int64(len(policies))) % len(users[pi])
		r, err := limiters[pi].Allow(ctx, users[pi][ui])
		cnt := &counts[pi][ui]
		cnt.decided.Add(1)
		switch {
		case err != nil:
			assert.ErrorIs(t, err, ErrUnavailable, "a fault, never an admission")
			assert.False(t, r.Allowed)
			cnt.failed.Add(1)
		case r.Allowed:
			cnt.admitted.Add(1)
		}
	}
	var stop atomic.Bool
	var decided atomic.Int64
	var wg sync.WaitGroup
	// The decisions go on until the test stops them, also when a check
	// fails (before the store closes); a cap of 100,000 each could run
	// out during a slow migration, and the wait for decisions after it
	// would then fail.
	defer func() {
		stop.Store(true)
		within.Wait(t, &wg, "the test's goroutines")
	}()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				decide()
				decided.Add(1)
			}
		}()
	}
	for i := 0; decided.Load() < 100; i++ {
		require.Less(t, i, 30_000, "no decisions before the migration") // a bound, never reached
		time.Sleep(time.Millisecond)
	}
	srcErr0, dstAsking0 := errorStat(t, ctx, src.c, "ASK"), commandCalls(t, ctx, dst.c, "asking")
	srcMoved0 := errorStat(t, ctx, src.c, "MOVED")
	// The migration, as redis-cli --cluster reshard does it, one key per
	// MIGRATE and a pause between, so that decisions meet the slot in each
	// of its states.
	require.NoError(t, dst.c.Do(ctx, "CLUSTER", "SETSLOT", migrated, "IMPORTING", src.id).Err())
	require.NoError(t, src.c.Do(ctx, "CLUSTER", "SETSLOT", migrated, "MIGRATING", dst.id).Err())
	host, port, _ := strings.Cut(dst.addr, ":")
	// First one key of a user of the policy of two limits: its decision
	// then meets its keys split between the nodes (TRYAGAIN): a fault, its
	// own.
	var split string
	for _, u := range users[1] {
		if split == "" && slot(tables[1].keys(u, nil)[0]) == migrated {
			split = u
		}
	}
	require.NoError(t, src.c.Migrate(ctx, host, port, tables[1].keys(split, nil)[0], 0, 5*time.Second).Err())
	_, err = limiters[1].Allow(ctx, split)
	require.ErrorIs(t, err, ErrUnavailable, "keys split between two nodes: TRYAGAIN")
	require.Contains(t, err.Error(), "TRYAGAIN")
	moved := 1
	for range 10_000 { // a bound, never reached: the slot holds a few dozen keys
		keys, err := src.c.ClusterGetKeysInSlot(ctx, int(migrated), 1).Result()
		require.NoError(t, err)
		if len(keys) == 0 {
			break
		}
		require.NoError(t, src.c.Migrate(ctx, host, port, keys[0], 0, 5*time.Second).Err())
		moved++
		time.Sleep(5 * time.Millisecond)
	}
	require.Positive(t, moved, "keys were moved")
	for _, n := range append([]*node{dst, src}, otherNodes(t, ctx, cl, src, dst)...) {
		require.NoError(t, n.c.Do(ctx, "CLUSTER", "SETSLOT", migrated, "NODE", dst.id).Err())
	}
	// Decisions go on after it: the source answers MOVED.
	for i, after := 0, decided.Load(); decided.Load() < after+200; i++ {
		require.Less(t, i, 60_000, "decisions stopped during the migration") // a bound, never reached
		time.Sleep(time.Millisecond)
	}
	stop.Store(true)
	within.Wait(t, &wg, "the test's goroutines")

	asks := errorStat(t, ctx, src.c, "ASK") - srcErr0
	movs := errorStat(t, ctx, src.c, "MOVED") - srcMoved0
	asking := commandCalls(t, ctx, dst.c, "asking") - dstAsking0
	t.Logf("slot %d moved from %s to %s (%d keys): the source answered ASK %d times and MOVED %d times; the target served ASKING %d times; store %+v",
		migrated, src.addr, dst.addr, moved, asks, movs, asking, s.Stats())
	assert.Zero(t, s.Stats().Switches, "a resharding does not take the store off Redis")
	assert.Positive(t, asks, "the client met the migration's redirections")
	assert.Positive(t, asking, "and followed them")
	keys, err := dst.c.ClusterCountKeysInSlot(ctx, int(migrated)).Result()
	require.NoError(t, err)
	assert.Positive(t, keys, "the slot's keys are on the target")

	// A multi-key call (a batch, a policy of two limits) on keys split
	// between the nodes, or new on the target, is refused (TRYAGAIN, or ASK
	// again once the client's redirections are spent): a fault, that
	// decision's alone here. Afterwards every decision succeeds, and the state holds at least what was
	// admitted: no decision admitted past it.
	for pi, l := range limiters {
		for ui, u := range users[pi] {
			cnt := &counts[pi][ui]
			adm, failed := cnt.admitted.Load(), cnt.failed.Load()
			assert.LessOrEqual(t, adm, int64(limit), "policy %s user %s: admitted past its limit", policies[pi].Name(), u)
			r, err := l.Peek(ctx, u, 1)
			require.NoError(t, err, "policy %s user %s: decided by the new owner", policies[pi].Name(), u)
			// A peek of 1 reports what would remain after it, or 0.
			want := max(int64(limit)-adm-1, 0)
			assert.LessOrEqual(t, r.Remaining, want, "policy %s user %s: the state counts what was admitted", policies[pi].Name(), u)
			if failed == 0 {
				assert.Equal(t, want, r.Remaining, "policy %s user %s: exact, no decision failed", policies[pi].Name(), u)
			}
			t.Logf("policy %s user %s: %d decided, %d admitted, %d failed, %d remaining", policies[pi].Name(), u,
				cnt.decided.Load(), adm, failed, r.Remaining)
		}
	}
}

// node is a master of the cluster: its address, id and own client.
type node struct {
	addr, id string
	c        *redis.Client
}

func newNode(t *testing.T, ctx context.Context, srv *redistest.Server) *node {
	t.Helper()
	n := &node{addr: srv.Addr(), c: srv.Client(t)}
	id, err := n.c.Do(ctx, "CLUSTER", "MYID").Text()
	require.NoError(t, err)
	n.id = id
	return n
}

// slotOwners returns the master holding slot and another one.
func slotOwners(t *testing.T, ctx context.Context, c *redis.ClusterClient, slot uint16, cl *redistest.Cluster) (src, dst *node) {
	t.Helper()
	//lint:ignore SA1019 CLUSTER SLOTS, deprecated since Redis 7.0 for SHARDS, still answers there and is plainer to read
	slots, err := c.ClusterSlots(ctx).Result()
	require.NoError(t, err)
	owner := ""
	for _, r := range slots {
		if int(slot) >= int(r.Start) && int(slot) <= int(r.End) {
			owner = r.Nodes[0].Addr
		}
	}
	require.NotEmpty(t, owner, "slot %d has an owner", slot)
	for _, srv := range cl.Nodes {
		switch {
		case srv.Addr() == owner:
			src = newNode(t, ctx, srv)
		case dst == nil:
			dst = newNode(t, ctx, srv)
		}
	}
	require.NotNil(t, src, "the owner %s is a node of the cluster", owner)
	return src, dst
}

// otherNodes returns the masters other than a and b.
func otherNodes(t *testing.T, ctx context.Context, cl *redistest.Cluster, a, b *node) []*node {
	t.Helper()
	var out []*node
	for _, srv := range cl.Nodes {
		if srv.Addr() != a.addr && srv.Addr() != b.addr {
			out = append(out, newNode(t, ctx, srv))
		}
	}
	return out
}

// errorStat returns how many error replies of the prefix (ASK, MOVED) the
// node has sent (INFO errorstats).
func errorStat(t *testing.T, ctx context.Context, c *redis.Client, prefix string) int64 {
	t.Helper()
	info, err := c.Info(ctx, "errorstats").Result()
	require.NoError(t, err)
	return infoCount(t, info, "errorstat_"+prefix+":count=")
}

// commandCalls returns how many times the node has run cmd (INFO
// commandstats).
func commandCalls(t *testing.T, ctx context.Context, c *redis.Client, cmd string) int64 {
	t.Helper()
	info, err := c.Info(ctx, "commandstats").Result()
	require.NoError(t, err)
	return infoCount(t, info, "cmdstat_"+cmd+":calls=")
}

func infoCount(t *testing.T, info, prefix string) int64 {
	t.Helper()
	for line := range strings.SplitSeq(info, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			v, _, _ := strings.Cut(rest, ",")
			n, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	return 0
}
