package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/redischeck"
	"github.com/redis/go-redis/v9"
)

// Stats is a snapshot of a store's health, for metrics and tests.
type Stats struct {
	// Down is true while decisions go to the failure mode.
	Down bool
	// RTT is the shortest round trip to Redis of the last measuring
	// period (32 round trips, or Check's PINGs); 0 before any.
	RTT time.Duration
	// SlowLink is true while RTT is not below Options.Timeout: decisions
	// miss their deadline, and the store cannot stay on Redis.
	SlowLink bool
	// Timeouts counts decisions that missed Options.Timeout.
	Timeouts uint64
	// Faults counts round trips that met a fault (see the package doc).
	Faults uint64
	// Switches counts switches away from Redis.
	Switches uint64
	// KeyConflicts counts decisions refused for WRONGTYPE.
	KeyConflicts uint64
	// EvictionPolicy is Redis's maxmemory-policy as read by Check; "" if
	// not read (CONFIG may be disabled on managed Redis).
	EvictionPolicy string
	// Evicts is true when EvictionPolicy may evict limiter keys (any but
	// noeviction: every limiter key has a TTL, so volatile-* policies
	// evict them too): limits can be silently erased under memory
	// pressure.
	Evicts bool
}

// counters are the store's Stats counters.
type counters struct {
	timeouts, faults, switches, conflicts atomic.Uint64
	conflictLogged, otherLogged           atomic.Bool
	policy                                atomic.Pointer[string]
}

// Stats returns the store's current figures.
func (s *Store) Stats() Stats {
	rtt, slow := s.rtt.get()
	st := Stats{
		Down: s.down.Load(), RTT: rtt, SlowLink: slow,
		Timeouts: s.stats.timeouts.Load(), Faults: s.stats.faults.Load(), Switches: s.stats.switches.Load(),
		KeyConflicts: s.stats.conflicts.Load(),
	}
	if p := s.stats.policy.Load(); p != nil {
		st.EvictionPolicy, st.Evicts = *p, evicts(*p)
	}
	return st
}

// evicts reports whether a maxmemory-policy may evict limiter keys under
// memory pressure (see redischeck.Evicts): every policy but noeviction.
func evicts(policy string) bool { return redischeck.Evicts(policy) }

// Check verifies that Redis answers, for use at start-up: three PINGs over
// the client's pool within ctx, the shortest of which is the measured
// round trip, then Options.Pipelines PINGs at once, and as many in
// pipelines (as the pipeline workers send decisions: alone, or in a
// pipeline), which leaves their connections open in the client's pools
// (on a slow link, a decision finding no open connection pays the
// connection's set-up), and it loads the function library every policy
// shares (the first decisions need no loading). It returns an error
// wrapping [ErrUnavailable] when Redis does not answer, and one wrapping
// [ErrTimeoutBelowRTT] when the round trip is not below Options.Timeout,
// and one wrapping the error a decision meets when a decision of a policy
// bound so far (the first 64) fails (a peek, a take and a reset of keys no
// limiter uses: an ACL forbidding the scripts, say, which PING does not
// show and under which FailOpen would admit every request). It then reads
// maxmemory-policy (tolerating a Redis whose CONFIG is disabled) and logs
// a warning when it may evict limiter keys (any policy but noeviction:
// they all have a TTL), reported by Stats. The checks are redisinflight's
// Check's too.
func (s *Store) Check(ctx context.Context) error {
	policy, err := redischeck.Check{
		What: "redisstore", Client: s.client, Timeout: s.opts.Timeout,
		Unavailable: ErrUnavailable, BelowRTT: ErrTimeoutBelowRTT, Unreachable: unreachable,
		RTT:   func(d time.Duration) { s.observeRTT(d, true) },
		Ready: s.warm,
		Probe: func(ctx context.Context) error {
			s.mu.Lock()
			bound := s.bound
			s.mu.Unlock()
			for _, sc := range bound {
				if err := s.probe(ctx, sc); err != nil {
					return err
				}
			}
			return nil
		},
		Log: s.logger(), Failing: "under FailOpen, every call would be admitted",
	}.Run(ctx)
	if err != nil || policy == "" {
		return err
	}
	s.stats.policy.Store(&policy)
	if evicts(policy) {
		s.notify(core.StoreEvicting, nil)
	}
	return nil
}

// warm opens Options.Pipelines connections in each of the client's pools,
// as the workers send decisions (alone, or in a pipeline), and loads the
// function library.
func (s *Store) warm(ctx context.Context) error {
	errs := make(chan error, 2*s.opts.Pipelines)
	for range s.opts.Pipelines {
		// A pipeline and a command, as the workers send them: go-redis
		// keeps a pool of its own for pipelines.
		go func() {
			_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error { return p.Ping(ctx).Err() })
			errs <- err
		}()
		go func() { errs <- s.client.Ping(ctx).Err() }()
	}
	for range 2 * s.opts.Pipelines {
		if err := <-errs; err != nil {
			return fmt.Errorf("redisstore: start-up check: %w: %w", ErrUnavailable, err)
		}
	}
	if s.noFunctions.Load() {
		return nil
	}
	if err := s.loadLibrary(ctx); err != nil && unreachable(err) {
		return fmt.Errorf("redisstore: start-up check: %w: %w", ErrUnavailable, err)
	}
	return nil
}

// probe runs sc's script as decisions run it, on keys no limiter uses: a
// peek, a take and a reset (which deletes the key and writes a marker,
// deleted then), so that the commands the scripts read, write and delete
// with all run: FCALL, or EVALSHA (EVAL when Redis lacks the script) when
// the store calls its scripts so or Redis has not the function. It
// returns the error a decision would meet: an ACL forbidding a command,
// or writes, say, which no PING shows (and a peek alone does not: it
// writes nothing).
func (s *Store) probe(ctx context.Context, sc *compiled) error {
	keys := make([]string, (sc.record/8-2)/7, (sc.record/8-2)/7+1) // one per limit (see compile), and a marker
	for i := range keys {
		keys[i] = s.opts.Prefix + "{floodgate-check}:" + strconv.Itoa(i)
	}
	now := int64(-1) // Redis TIME
	if s.opts.CallerClock {
		now = time.Now().UnixMicro()
	}
	marker := fmt.Sprintf("%s{floodgate-check}:f%016x%016x", s.opts.Prefix, rand.Uint64(), rand.Uint64())
	ttl := max(1, s.ioTimeout.Milliseconds())
	for _, op := range []store.Op{store.OpPeek, store.OpTake, store.OpReset} {
		args, ks := []any{opCodes[op], 1, now, 0, 0}, keys
		if op == store.OpReset {
			args[3], ks = ttl, append(keys, marker)
		}
		if err := s.call(ctx, sc, ks, args); err != nil {
			return err
		}
	}
	// The reset deleted the limits' keys; its marker goes too (it would
	// expire by itself): Check leaves no key behind.
	return s.client.Del(ctx, marker).Err()
}

// call runs sc's script once with keys and args: FCALL, or EVALSHA (EVAL
// when Redis lacks the script) when the store calls its scripts so or
// Redis has not the function.
func (s *Store) call(ctx context.Context, sc *compiled, keys []string, args []any) error {
	args = append(args, sc.specArg)
	if !s.noFunctions.Load() {
		err := s.client.FCall(ctx, sc.fn, keys, args...).Err()
		if !isMissing(err) {
			return err
		}
	}
	err := s.client.EvalSha(ctx, sc.script().sha, keys, args...).Err()
	if isMissing(err) {
		err = s.client.Eval(ctx, sc.script().src, keys, args...).Err()
	}
	return err
}

// rttMeter keeps the shortest round trip of each period of 32.
type rttMeter struct {
	mu   sync.Mutex
	best time.Duration // of the current period, -1 before its first
	n    int
	last time.Duration // of the last period
	slow bool
	// measured: a round trip has been published (see observeRTT)
	measured bool
}

func (m *rttMeter) get() (time.Duration, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last, m.slow
}

// observeRTT records a successful round trip of d; closing a period
// (every 32, or now) updates the measure and logs a change of SlowLink.
// The first round trip ever answered (without Check) chooses the
// decisions' path until the first period closes: a store that waited for
// 32 of them decided requests on the callers' goroutines (see combine) over
// a slow link, where each missed deadline cost a connection and the next
// one's handshake missed its deadline again.
func (s *Store) observeRTT(d time.Duration, now bool) {
	m := &s.rtt
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == 0 || d < m.best {
		m.best = d
	}
	m.n++
	if m.n < 32 && !now {
		if !m.measured {
			// Provisional, for the choice of path only: a first round
			// trip may include its connection's handshake, so it is
			// not judged against Options.Timeout (SlowLink, the log).
			m.measured = true
			s.rttNs.Store(int64(d))
		}
		return
	}
	m.measured = true
	m.last, m.n = m.best, 0
	s.rttNs.Store(int64(m.last))
	slow := m.last >= s.opts.Timeout
	if slow == m.slow {
		return
	}
	m.slow = slow
	if slow {
		s.logger().Error("redisstore: the round trip to redis is not below Options.Timeout: decisions miss their deadline",
			"rtt", m.last, "timeout", s.opts.Timeout)
		s.notify(core.StoreSlow, nil)
	} else {
		s.logger().Info("redisstore: the round trip to redis is below Options.Timeout again", "rtt", m.last, "timeout", s.opts.Timeout)
		s.notify(core.StoreSlowEnded, nil)
	}
}
