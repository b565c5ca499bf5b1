package redisstore_test

import (
	"context"
	"net"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// twiceStore binds tables that execute every refund twice, as a Redis
// client retrying a command whose reply it did not read does.
type twiceStore struct{ s core.Store }

func (w twiceStore) Bind(p *core.Policy) (store.Table, error) {
	t, err := w.s.Bind(p)
	return twiceTable{t}, err
}

type twiceTable struct{ store.Table }

func (t twiceTable) Do(ctx context.Context, req store.Request) (store.Decision, error) {
	if req.Op == store.OpRefund {
		if _, err := t.Table.Do(ctx, req); err != nil {
			return store.Decision{}, err
		}
	}
	return t.Table.Do(ctx, req)
}

// retryPolicies are a policy per algorithm and one of several limits.
func retryPolicies() []*core.Policy {
	var ps []*core.Policy
	algs := coretest.Algorithms()
	for _, a := range algs {
		ps = append(ps, core.MustPolicy("retry-"+a.Name, a))
	}
	return append(ps, core.MustPolicy("retry-multi", algs[0], algs[2], algs[5]))
}

// takeAndRefund takes cost 1 three times for key on l, 800 ms apart,
// refunds the second take 50 ms after the third and returns a peek's
// limits then.
func takeAndRefund(t *testing.T, l *core.Limiter, clk *coretest.Clock, key string) []core.LimitResult {
	t.Helper()
	ctx := context.Background()
	var taken []core.Result
	for range 3 {
		r, err := l.AllowN(ctx, key, 1)
		require.NoError(t, err)
		require.True(t, r.Allowed, "%s", l.Policy().Name())
		taken = append(taken, r)
		clk.Advance(800 * time.Millisecond)
	}
	clk.Advance(-750 * time.Millisecond)
	_, err := l.Refund(ctx, key, taken[1])
	require.NoError(t, err)
	p, err := l.Peek(ctx, key, 1)
	require.NoError(t, err)
	return p.Limits()
}

// states returns the values of the keys under prefix, named without it,
// and the refund markers (keys ending in :f and 32 hex digits) apart.
func states(t *testing.T, c redis.UniversalClient, prefix string) (map[string]string, []string) {
	t.Helper()
	ctx := context.Background()
	keys, err := c.Keys(ctx, prefix+"*").Result()
	require.NoError(t, err)
	out := map[string]string{}
	var markers []string
	for _, k := range keys {
		name := strings.TrimPrefix(k, prefix)
		if i := strings.LastIndex(name, "}:f"); i >= 0 && len(name)-i-3 == 32 {
			markers = append(markers, name)
			continue
		}
		v, err := c.Get(ctx, k).Result()
		require.NoError(t, err)
		out[name] = v
	}
	sort.Strings(markers)
	return out, markers
}

// TestRefundExecutedTwice applies each refund twice through the table (a
// command the client sends again after a lost reply): the state, and what
// a peek reports, are those of one refund, for every algorithm; one marker
// per refund is left, with a TTL, as is every key.
func TestRefundExecutedTwice(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	refunds := 0
	for _, p := range retryPolicies() {
		clk := newClock()
		// ExpirySlack: the fake clock moves 2.4 s, Redis's TTLs run in
		// real time; without it a loaded machine let a GCRA key expire
		// between two takes, and the refund found a newer state.
		opts := redisstore.Options{CallerClock: true, ExpirySlack: time.Hour, Prefix: "twice:" + p.Name() + ":"}
		got := limiterOn(t, twiceStore{newStore(t, c, opts)}, p, core.WithClock(clk))
		opts.Prefix = "once:" + p.Name() + ":"
		want := limiterOn(t, newStore(t, c, opts), p, core.WithClock(clk))
		start := clk.Now()
		g := takeAndRefund(t, got, clk, "k")
		clk.Set(start)
		w := takeAndRefund(t, want, clk, "k")
		require.Equal(t, w, g, "policy %s", p.Name())
		gs, gm := states(t, c, "twice:"+p.Name()+":")
		ws, wm := states(t, c, "once:"+p.Name()+":")
		require.Equal(t, ws, gs, "policy %s: state", p.Name())
		require.Len(t, gm, len(wm), "policy %s: a marker per refund giving something back", p.Name())
		require.LessOrEqual(t, len(wm), 1, "policy %s", p.Name())
		refunds += len(wm)
	}
	require.Greater(t, refunds, len(retryPolicies())/2, "most refunds give something back")
	checkTTLs(t, c)
}

// countingConn counts the FCALL commands written on a connection, and
// applies the client's read deadlines only while short is set: the
// client's 50 ms ReadTimeout is the fault under test during the stall, and
// elsewhere a loaded machine could reach it (a take sent again by the
// client would then count twice).
type countingConn struct {
	net.Conn
	n     *atomic.Int64
	short *atomic.Bool
}

func (c countingConn) Write(b []byte) (int, error) {
	c.n.Add(int64(strings.Count(strings.ToLower(string(b)), "fcall")))
	return c.Conn.Write(b)
}

func (c countingConn) SetReadDeadline(t time.Time) error {
	if !t.IsZero() && !c.short.Load() {
		t = t.Add(10 * time.Second) // a bound never reached
	}
	return c.Conn.SetReadDeadline(t)
}

func (c countingConn) SetDeadline(t time.Time) error {
	if err := c.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	return c.SetReadDeadline(t)
}

// TestRefundRetriedByClient: a refund whose reply does not come back
// within the client's ReadTimeout (MaxRetries 3, go-redis's default) is
// sent once (the store's commands are NoRetry; it was sent again before);
// every copy reaches Redis (the proxy holds them, then delivers them all).
// The state is that of one refund.
func TestRefundRetriedByClient(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	direct := srv.Client(t)
	px := faultproxy.Start(t, srv.Addr())
	const maxRetries = 3  // go-redis's default
	var sent atomic.Int64 // FCALLs the client wrote
	var short atomic.Bool // the client's ReadTimeout applies
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, network, addr)
		return countingConn{conn, &sent, &short}, err
	}
	c := redis.NewClient(&redis.Options{
		// A read timeout a loaded machine does not reach before the stall:
		// a take timing out is not retried, and would fail the set-up.
		Addr: px.Addr(), Dialer: dial, MaxRetries: maxRetries, ReadTimeout: 250 * time.Millisecond,
		MinRetryBackoff: time.Millisecond, MaxRetryBackoff: 2 * time.Millisecond,
		DialTimeout: 5 * time.Second, WriteTimeout: 10 * time.Second, PoolSize: 8,
	})
	t.Cleanup(func() { _ = c.Close() })
	p := core.MustPolicy("retried", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerHour(10), Burst: 10}})
	clk := newClock()
	// Timeout 10 s: the decision waits for all the client's attempts
	// (each cut at 250 ms) rather than for its own deadline.
	opts := redisstore.Options{CallerClock: true, ExpirySlack: time.Hour, Prefix: "retried:", Timeout: 10 * time.Second}
	got := limiterOn(t, newStore(t, c, opts), p, core.WithClock(clk))
	opts.Prefix = "once:"
	want := limiterOn(t, newStore(t, direct, opts), p, core.WithClock(clk))
	ctx := context.Background()

	var gt, wt []core.Result
	for range 3 {
		r, err := got.AllowN(ctx, "k", 2)
		require.NoError(t, err)
		gt = append(gt, r)
		r, err = want.AllowN(ctx, "k", 2)
		require.NoError(t, err)
		wt = append(wt, r)
		clk.Advance(time.Second)
	}
	_, err := want.Refund(ctx, "k", wt[1])
	require.NoError(t, err)

	// Four idle connections in the client's pool, one per attempt: a new
	// connection's handshake would time out (stalled) before its FCALL.
	var conns []*redis.Conn
	for range 1 + maxRetries {
		cn := c.Conn()
		require.NoError(t, cn.Ping(ctx).Err())
		conns = append(conns, cn)
	}
	for _, cn := range conns {
		require.NoError(t, cn.Close())
	}
	before, sent0 := commands(t, direct, "fcall"), sent.Load()
	px.Stall()
	short.Store(true)
	_, err = got.Refund(ctx, "k", gt[1])
	short.Store(false)
	require.ErrorIs(t, err, redisstore.ErrUnavailable, "every attempt timed out")
	// Every attempt was written before the client gave up on it; the
	// proxy holds them, then delivers them all, in order. go-redis does not
	// send the store's commands again (NoRetry, on a Cluster too); however
	// many copies went out, the marker makes the refund act once.
	attempts := sent.Load() - sent0
	require.Equal(t, int64(1), attempts, "sent once, whatever MaxRetries")
	px.Resume()
	for i := 0; commands(t, direct, "fcall") < before+attempts; i++ {
		require.Less(t, i, 1000, "the client's attempts never reached Redis: %d of %d", commands(t, direct, "fcall")-before, attempts)
		time.Sleep(10 * time.Millisecond)
	}
	require.Equal(t, before+attempts, commands(t, direct, "fcall"), "the refund executed once per attempt")

	gs, gm := states(t, direct, "retried:")
	ws, _ := states(t, direct, "once:")
	require.Equal(t, ws, gs, "the state of one refund")
	require.Len(t, gm, 1)
	gp, err := got.Peek(ctx, "k", 1)
	require.NoError(t, err)
	wp, err := want.Peek(ctx, "k", 1)
	require.NoError(t, err)
	require.Equal(t, wp.Limits(), gp.Limits())
	checkTTLs(t, direct)
}
