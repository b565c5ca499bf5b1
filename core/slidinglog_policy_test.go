package core_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// slBrute is one sliding log as a brute-force model: every entry ever
// logged (never truncated, never dropped) and the latest instant logged.
type slBrute struct {
	limit, window int64
	countRejected bool
	log           []int64 // sorted
	latest        int64
}

func (m *slBrute) eff(now int64) int64 { return max(now, m.latest) }

// live returns the entries counted at the instant now is decided at.
func (m *slBrute) live(now int64) []int64 {
	eff := m.eff(now)
	var out []int64
	for _, e := range m.log {
		if eff-e < m.window {
			out = append(out, e)
		}
	}
	return out
}

func (m *slBrute) admits(now, cost int64) bool {
	return cost <= m.limit && int64(len(m.live(now)))+cost <= m.limit
}

func (m *slBrute) push(now, cost int64) {
	eff := m.eff(now)
	for range cost {
		m.log = append(m.log, eff)
	}
	m.latest = eff
}

func (m *slBrute) refund(taken, cost int64) {
	for i := len(m.log) - 1; i >= 0 && cost > 0; i-- {
		if m.log[i] == taken {
			m.log = slices.Delete(m.log, i, i+1)
			cost--
		}
	}
}

// report is what the limit says of cost at now as the log stands: allowed
// (and what remains without it), or the exact wait until it passes.
func (m *slBrute) report(now, cost int64) core.LimitResult {
	live := m.live(now)
	r := core.LimitResult{Allowed: m.admits(now, cost), Remaining: max(m.limit-int64(len(live)), 0)}
	if len(live) > 0 {
		r.ResetAfter = time.Duration(live[len(live)-1] + m.window - now)
	}
	switch {
	case r.Allowed:
	case cost > m.limit:
		r.RetryAfter = core.Never
	default:
		// The first instant it passes is one at which an entry expires.
		var cands []int64
		for _, e := range m.log {
			cands = append(cands, e+m.window)
		}
		slices.Sort(cands)
		for _, c := range cands {
			if c > now && m.admits(c, cost) {
				r.RetryAfter = time.Duration(c - now)
				break
			}
		}
	}
	return r
}

// policyBrute decides a policy of sliding logs by its documented rule: a
// request passes if every log admits it; a denied attempt is logged by
// every CountRejected log unless some log can never grant its cost; each
// log then reports as it stands (the logged log for those that logged).
func policyBrute(ms []*slBrute, now, cost int64) (bool, []core.LimitResult) {
	all, never := true, false
	for _, m := range ms {
		all = all && m.admits(now, cost)
		never = never || cost > m.limit
	}
	out := make([]core.LimitResult, len(ms))
	for i, m := range ms {
		switch {
		case all:
			live := int64(len(m.live(now)))
			out[i] = core.LimitResult{Allowed: true, Remaining: m.limit - live - cost, ResetAfter: time.Duration(m.eff(now) + m.window - now)}
			m.push(now, cost)
		case m.countRejected && !never:
			m.push(now, cost)
			out[i] = m.report(now, cost)
		default:
			out[i] = m.report(now, cost)
			if out[i].Allowed {
				out[i].Remaining = m.limit - int64(len(m.live(now)))
			}
		}
	}
	return all, out
}

// slStep is a step of a schedule, for failure messages.
type slStep struct {
	step                  int
	refund, peek, allowed bool
	at                    time.Duration
	cost                  int64
}

type slTrace []slStep

func (tr slTrace) String() string {
	var b strings.Builder
	for _, s := range tr {
		if s.refund {
			fmt.Fprintf(&b, "step %d: refund %v cost %d\n", s.step, s.at, s.cost)
		} else {
			fmt.Fprintf(&b, "step %d: cost %d at %v peek %v -> %v\n", s.step, s.cost, s.at, s.peek, s.allowed)
		}
	}
	return b.String()
}

// Policies of one to three sliding logs, with and without CountRejected,
// under lagging clocks and refunds, decide as the brute-force model: every
// limit's Allowed, Remaining, ResetAfter and RetryAfter, and the policy's
// RetryAfter, which is then exact.
func TestSlidingLogPoliciesMatchBruteForce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(71, 72))
	ctx := context.Background()
	for sched := 0; sched < 3000; sched++ {
		n := 1 + rng.IntN(3)
		var limits []core.Limit
		var ms []*slBrute
		for i := 0; i < n; i++ {
			m := &slBrute{limit: 1 + rng.Int64N(6), window: (1 + rng.Int64N(8)) * int64(time.Second), countRejected: rng.IntN(2) == 0}
			ms = append(ms, m)
			limits = append(limits, core.Limit{Name: fmt.Sprint("l", i), Algorithm: core.SlidingLog{Quota: m.limit, Window: time.Duration(m.window), CountRejected: m.countRejected}})
		}
		anyCR := false
		for _, m := range ms {
			anyCR = anyCR || m.countRejected
		}
		clk := coretest.NewClock(t0)
		l := newLimiter(t, clk, limits...)
		newest := t0.UnixNano()
		var taken []core.Result
		var trace slTrace
		for step := 0; step < 40; step++ {
			now := newest
			switch rng.IntN(6) {
			case 0: // a lagging clock
				now -= rng.Int64N(3 * int64(time.Second))
			case 1:
			default:
				newest += rng.Int64N(int64(1500 * time.Millisecond))
				now = newest
			}
			clk.Set(time.Unix(0, now))
			// Refunds only where no log counts rejected attempts: a
			// refund there may remove entries of denied attempts at the
			// same instant, which the ring (the newest Quota entries)
			// and the whole log count differently (left to the refund
			// rules).
			if !anyCR && len(taken) > 0 && rng.IntN(6) == 0 {
				k := rng.IntN(len(taken))
				trace = append(trace, slStep{step: step, refund: true, at: taken[k].At().Sub(t0), cost: taken[k].Cost})
				_, err := l.Refund(ctx, "k", taken[k])
				require.NoError(t, err)
				// A refund gives nothing back once the take's hold on a
				// limit (its ResetAfter when taken) has ended.
				per := taken[k].Limits()
				for i, m := range ms {
					if at := taken[k].At().UnixNano(); now < at+int64(per[i].ResetAfter) {
						m.refund(at, taken[k].Cost)
					}
				}
				taken = slices.Delete(taken, k, k+1)
				continue
			}
			cost := 1 + rng.Int64N(4)
			peek := rng.IntN(4) == 0
			var r core.Result
			var err error
			if peek {
				r, err = l.Peek(ctx, "k", cost)
			} else {
				r, err = l.AllowN(ctx, "k", cost)
			}
			require.NoError(t, err)
			var ok bool
			var want []core.LimitResult
			if peek {
				// A peek is told what the attempt would be, and logs nothing.
				saved := make([]slBrute, len(ms))
				for i, m := range ms {
					saved[i] = *m
					saved[i].log = slices.Clone(m.log)
				}
				ok, want = policyBrute(ms, now, cost)
				for i := range ms {
					*ms[i] = saved[i]
				}
			} else {
				ok, want = policyBrute(ms, now, cost)
			}
			trace = append(trace, slStep{step: step, at: time.Duration(now - t0.UnixNano()), cost: cost, peek: peek, allowed: r.Allowed})
			got := r.Limits()
			retry := time.Duration(0)
			for i := range got {
				got[i].Name, got[i].Quota, got[i].Window = "", 0, 0
				if !want[i].Allowed {
					retry = max(retry, want[i].RetryAfter)
				}
			}
			if ok != r.Allowed || !slices.Equal(want, got) || (!ok && retry != r.RetryAfter) {
				// The message only for a failure: formatting it at every
				// step cost more than the step.
				msg := fmt.Sprintf("schedule %d step %d: cost %d at %v (newest %v), peek %v", sched, step, cost,
					time.Duration(now-t0.UnixNano()), time.Duration(newest-t0.UnixNano()), peek)
				require.Equal(t, ok, r.Allowed, msg)
				require.Equal(t, want, got, "%s\n%v %v", msg, trace, ms)
				require.Equal(t, retry, r.RetryAfter, msg)
			}
			if r.Allowed && !peek {
				taken = append(taken, r)
			}
		}
	}
}

// A caller whose clock lags the key's latest logged instant is decided and
// logged at that instant, also once a refund has removed the newest
// entries: a lagging clock never logs an entry in the past.
func TestSlidingLogLaggingClockAfterRefund(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk, core.Limit{Name: "x", Algorithm: core.SlidingLog{Quota: 2, Window: 10 * time.Second}})
	clk.Set(t0.Add(20 * time.Second))
	a, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	_, err = l.Refund(ctx, "k", a)
	require.NoError(t, err)
	// A caller 15 s behind: logged at 20 s, so its entry counts until 30 s.
	clk.Set(t0.Add(5 * time.Second))
	r, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	require.True(t, r.Allowed)
	require.Equal(t, 25*time.Second, r.ResetAfter)
	clk.Set(t0.Add(20 * time.Second))
	r, err = l.AllowN(ctx, "k", 2)
	require.NoError(t, err)
	require.False(t, r.Allowed)
	require.Equal(t, 10*time.Second, r.RetryAfter)
}

// With CountRejected, a denial's ResetAfter and Remaining count the attempt
// the denial has just logged.
func TestSlidingLogCountRejectedReportsTheLoggedAttempt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk, core.Limit{Name: "x", Algorithm: core.SlidingLog{Quota: 4, Window: 10 * time.Second, CountRejected: true}})
	r, err := l.AllowN(ctx, "k", 3)
	require.NoError(t, err)
	require.True(t, r.Allowed)
	clk.Set(t0.Add(4 * time.Second))
	r, err = l.AllowN(ctx, "k", 2)
	require.NoError(t, err)
	require.False(t, r.Allowed)
	// Logged at 4 s (the oldest entry dropped): 0, 0, 4 s, 4 s. Full, its
	// newest entries expire at 14 s, and a cost of 2 passes at 10 s.
	require.Equal(t, 10*time.Second, r.ResetAfter)
	require.Equal(t, int64(0), r.Remaining)
	require.Equal(t, 6*time.Second, r.RetryAfter)
}

// With CountRejected, an attempt denied by another limit of the policy is
// logged too, and the decision's RetryAfter accounts for it.
func TestSlidingLogCountRejectedLogsOtherLimitsDenials(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk,
		core.Limit{Name: "log", Algorithm: core.SlidingLog{Quota: 3, Window: 10 * time.Second, CountRejected: true}},
		core.Limit{Name: "fixed", Algorithm: core.FixedWindow{Quota: 1, Window: time.Second}})
	r, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	require.True(t, r.Allowed)
	for i := 0; i < 2; i++ {
		r, err = l.Allow(ctx, "k") // denied by "fixed", logged by "log"
		require.NoError(t, err)
		require.False(t, r.Allowed)
	}
	// The log is full: 3 entries at 0 s. The wait is the log's, not the
	// fixed window's.
	require.Equal(t, 10*time.Second, r.RetryAfter)
	clk.Set(t0.Add(5 * time.Second))
	r, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	require.False(t, r.Allowed, "the attempts denied by the other limit count")
}
