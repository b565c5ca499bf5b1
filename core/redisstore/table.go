package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
)

// stateFormat names the keys' value format (see step.lua), hashed into
// every key: a store of another format reads and writes other keys, and
// the old ones expire by their TTL.
const stateFormat = "floodgate redis state 3|"

// table decides one policy in Redis.
type table struct {
	s      *Store
	p      *core.Policy
	sc     *compiled
	fp     string // the policy's shape (see shape): its keys
	fpSum  [sha256.Size]byte
	slack  any // Options.ExpirySlack in ms, boxed once
	quotas []int64
	deny   *denyCache   // nil when not exact for p or disabled
	local  *localState  // FailLocal's, shared with the tables Rebind makes
	gen    uint64       // this table's place among them: 0 for Bind's, n for the nth Rebind
	scaled *core.Policy // FailLocal's policy
}

// localState is FailLocal's in-memory limiter of a table and of the
// tables Rebind makes from it: one state for them all (made at the first
// take Redis admits, or the first fault), decided under the newest
// table's scaled policy, so that a change of policy during an outage
// keeps what this process admitted instead of granting its share afresh.
// Every take Redis admits is charged to it too (see table.charge).
type localState struct {
	mu   sync.Mutex
	cur  atomic.Pointer[localTable] // nil until its first use
	gens atomic.Uint64              // the tables Rebind made
}

// localTable is the local limiter as of the table of generation gen.
type localTable struct {
	t   store.Table
	gen uint64
}

// table returns the local limiter for t: made now at its first use, or
// moved to t's policy when t is newer than the one it decides (a table
// older than it uses it as it is: a decision in flight across a change).
func (l *localState) table(t *table) (store.Table, error) {
	if lt := l.cur.Load(); lt != nil && lt.gen >= t.gen {
		return lt.t, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	lt := l.cur.Load()
	switch {
	case lt != nil && lt.gen >= t.gen:
		return lt.t, nil
	case lt != nil:
		nt, err := lt.t.(core.Rebinder).Rebind(t.scaled)
		if err != nil {
			return nil, err
		}
		lt = &localTable{t: nt, gen: t.gen}
	default:
		ms, err := core.NewMemoryStore(core.MemoryOptions{})
		if err != nil {
			return nil, err
		}
		tb, err := ms.Bind(t.scaled)
		if err != nil {
			return nil, err
		}
		lt = &localTable{t: tb, gen: t.gen}
	}
	l.cur.Store(lt)
	return lt.t, nil
}

// Supports reports whether the Redis store can decide p exactly as the
// in-memory store does: nil, or the error (wrapping core.ErrInvalidConfig)
// that Bind would return. It needs no Redis.
func Supports(p *core.Policy) error {
	if p == nil {
		return fmt.Errorf("redisstore: nil policy: %w", core.ErrInvalidConfig)
	}
	_, err := compile(p)
	return err
}

// Bind compiles p's script and returns the table that decides p. It fails
// (wrapping core.ErrInvalidConfig) for a configuration the scripts cannot
// decide exactly as the in-memory store does; see the package doc.
func (s *Store) Bind(p *core.Policy) (store.Table, error) {
	if p == nil {
		return nil, fmt.Errorf("redisstore: nil policy: %w", core.ErrInvalidConfig)
	}
	if s == nil || s.client == nil {
		return nil, fmt.Errorf("redisstore: nil or zero Store (make it with New): %w", core.ErrInvalidConfig)
	}
	sc, err := compile(p)
	if err != nil {
		return nil, err
	}
	t := &table{s: s, p: p, sc: sc, fp: shape(p)}
	t.fpSum = sha256.Sum256([]byte(stateFormat + t.fp))
	t.slack = s.opts.ExpirySlack.Milliseconds()
	// The quotas, for FailOpen results, from a peek on a key never seen.
	ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 1})
	if err != nil {
		return nil, err
	}
	l, err := core.NewLimiter(p, core.WithStore(ms))
	if err != nil {
		return nil, err
	}
	r, err := l.Peek(context.Background(), "", 1)
	if err != nil {
		return nil, err
	}
	for _, lr := range r.Limits() {
		t.quotas = append(t.quotas, lr.Quota)
	}
	if sc.denyCache && s.opts.DenyCacheSize > 0 {
		t.deny = newDenyCache(s.opts.DenyCacheSize)
	}
	if s.opts.FailureMode == FailLocal {
		if t.scaled, err = ScalePolicy(p, s.opts.LocalShare); err != nil {
			return nil, err
		}
		t.local = &localState{}
	}
	s.preload(sc)
	return t, nil
}

// keys returns the Redis keys of key's limits:
// prefix{first 16 bytes of SHA-256(SHA-256(version, fingerprint) || key),
// hex}:i, then, for a refund or a reset (rid non-nil), the key of its
// marker, prefix{same}:f followed by rid in hex: in the same hash slot.
func (t *table) keys(key string, rid *[2]uint64) []string { return t.appendKeys(nil, key, rid) }

// appendKeys appends the keys of key (see keys) to dst.
func (t *table) appendKeys(dst []string, key string, rid *[2]uint64) []string {
	var sum [sha256.Size]byte
	if len(key) <= maxStackKey {
		var in [sha256.Size + maxStackKey]byte
		sum = sha256.Sum256(append(append(in[:0], t.fpSum[:]...), key...))
	} else {
		h := sha256.New()
		h.Write(t.fpSum[:])
		h.Write([]byte(key))
		h.Sum(sum[:0])
	}
	var kb [96]byte
	b := append(append(kb[:0], t.s.opts.Prefix...), '{')
	b = append(hex.AppendEncode(b, sum[:16]), '}', ':')
	for i := range t.quotas {
		dst = append(dst, string(strconv.AppendInt(b, int64(i), 10)))
	}
	if rid != nil {
		var id [16]byte
		binary.BigEndian.PutUint64(id[:8], rid[0])
		binary.BigEndian.PutUint64(id[8:], rid[1])
		dst = append(dst, string(hex.AppendEncode(append(b, 'f'), id[:])))
	}
	return dst
}

// maxStackKey is the longest key hashed without an allocation.
const maxStackKey = 224

// Do applies req in Redis; see store.Table.
func (t *table) Do(ctx context.Context, req store.Request) (store.Decision, error) {
	if err := checkRequest(&req); err != nil {
		return store.Decision{}, err
	}
	var entered int64 // when the store got req, on its monotonic clock (see charge)
	if t.local != nil && !t.s.opts.CallerClock {
		entered = t.s.mono()
	}
	var gen uint64 // the deny cache's generation of the key's bucket (see denyCache.put)
	if t.deny != nil {
		switch req.Op {
		case store.OpRefund, store.OpReset:
			t.deny.del(req.Key, true)
			// Again once it has ended, whatever its outcome: a denial
			// decided before it and received after must not hide what
			// it gave back.
			defer t.deny.del(req.Key, true)
		default:
			if req.Cost == 1 {
				o, ok, g := t.deny.get(req.Key, req.Now, t.cacheNow(req))
				if ok {
					return store.Decision{At: req.Now, Outcomes: [store.MaxLimits]store.Outcome{o}, Source: store.SourceCache}, nil
				}
				gen = g
			}
		}
	}
	ok, trial := t.s.br.Allow()
	if !ok {
		return t.fallback(ctx, req, ErrUnavailable)
	}
	now := nowRedis
	if t.s.opts.CallerClock {
		now = req.Now / 1000
	}
	taken := zeroArg
	var rid *[2]uint64
	switch req.Op {
	case store.OpRefund:
		taken = t.refundArg(req)
		rid = &req.RefundID
	case store.OpReset:
		taken = t.markerTTL()
		rid = &[2]uint64{}
	}
	if rid != nil && *rid == [2]uint64{} {
		// Unnamed: a name of its own still makes a command the client
		// sends twice act once.
		*rid = [2]uint64{rand.Uint64(), rand.Uint64()}
	}
	c := callPool.Get().(*call)
	c.sc, c.keys, c.trial = t.sc, t.appendKeys(c.keys[:0], req.Key, rid), trial
	c.args = append(c.args[:0], opArgs[req.Op], req.Cost, now, taken, t.slack)
	completed, err := t.s.exec(ctx, c)
	if err != nil {
		if completed {
			c.reply, c.err = nil, nil
			callPool.Put(c)
		}
		return t.failed(ctx, req, err)
	}
	res, err := t.result(req, c.reply, gen) // before c, and its buffer, go back to the pool
	c.reply, c.err = nil, nil
	callPool.Put(c)
	if err == nil && t.local != nil {
		switch {
		case res.Taken && req.Op == store.OpTake:
			t.charge(ctx, req, entered)
		case req.Op == store.OpReset:
			t.forget(ctx, req)
		}
	}
	return res, err
}

// forget applies the reset Redis made, req, to FailLocal's local limiter
// too, when it holds anything: it forgets the charges of the takes Redis
// admitted (see charge), which an outage would otherwise still deny
// though Redis holds nothing for the key.
func (t *table) forget(ctx context.Context, req store.Request) {
	if t.local.cur.Load() == nil {
		return // nothing charged yet
	}
	lt, err := t.local.table(t)
	if err != nil {
		return
	}
	_, _ = lt.Do(ctx, req)
}

// charge takes what Redis admitted, req, from FailLocal's local limiter
// too, as far as its share holds it (a take it would deny charges
// nothing), so that an outage that follows grants this process its share
// less what it admitted in Redis, not its share again.
//
// The local limiter runs on the caller's clock (an outage decides at
// req.Now). With CallerClock, Redis decided at req.Now too: the charge is
// made there. Otherwise Redis decided at its own instant, some time after
// the caller read req.Now: the charge is made at req.Now plus the time
// the store held the request (entered, then now, on its monotonic clock),
// no earlier than Redis's decision on the caller's clock. At req.Now, a
// request stalled before it was sent (queued for a connection, a
// goroutine descheduled) had its charge end before Redis's admission by
// the stall, and an outage that followed admitted the key that much early.
func (t *table) charge(ctx context.Context, req store.Request, entered int64) {
	lt, err := t.local.table(t)
	if err != nil {
		return // (Bind made the scaled policy: the local store binds it)
	}
	if !t.s.opts.CallerClock {
		if d := t.s.mono() - entered; d > 0 && req.Now <= math.MaxInt64-d {
			req.Now += d
		}
	}
	_, _ = lt.Do(ctx, req)
}

// checkRequest refuses a request no Limiter sends.
func checkRequest(req *store.Request) error {
	switch {
	case int(req.Op) >= len(opArgs):
		return fmt.Errorf("redisstore: unknown op %d: %w", req.Op, core.ErrInvalidConfig)
	case req.Now < 0:
		return fmt.Errorf("redisstore: now %d: %w", req.Now, core.ErrClock)
	case (req.Op == store.OpTake || req.Op == store.OpPeek) && req.Cost < 1:
		return fmt.Errorf("redisstore: cost %d: %w", req.Cost, core.ErrInvalidCost)
	}
	return nil
}

// refundArg is a refund's "taken" argument for step.lua: the take's instant
// in µs, each limit's hold in ns, then the least TTL of its marker in ms
// (see markerTTL).
func (t *table) refundArg(req store.Request) string {
	b := strconv.AppendInt(make([]byte, 0, 24*(2+len(t.quotas))), floorDiv(req.Taken, 1000), 10)
	for i := range t.quotas {
		b = strconv.AppendInt(append(b, ','), req.Holds[i], 10)
	}
	b = strconv.AppendInt(append(b, ','), t.markerTTL(), 10)
	return string(b)
}

// markerTTL is the TTL, in ms, of a reset's marker and the least of a
// refund's (step.lua keeps it at least as long as the refund's remaining
// hold): the pipeline's own
// bound (the client may send a command again until then) plus
// Options.ExpirySlack (the caller's clock against Redis's, with
// CallerClock, where a refund sent again computes with the same instant).
func (t *table) markerTTL() int64 {
	return max(1, t.s.ioTimeout.Milliseconds()+t.s.opts.ExpirySlack.Milliseconds())
}

// floorDiv is ⌊a/b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// result decodes a script's reply: a record, or a take's short record
// (see step.lua).
func (t *table) result(req store.Request, reply []byte, gen uint64) (store.Decision, error) {
	if req.Op == store.OpReset {
		return store.Decision{}, nil
	}
	var d store.Decision
	var err error
	if g := t.sc.gcra; g != nil && req.Op == store.OpTake && len(reply) == shortRecord {
		d, err = t.short(req, g, reply)
	} else {
		d, err = t.full(req, reply)
	}
	if err != nil {
		return store.Decision{}, err
	}
	outs := d.Outcomes[:len(t.quotas)]
	if t.deny != nil && d.Taken {
		// The key's state moved on (a take of any cost): a denial cached
		// before it no longer holds, not even for a lagging caller.
		t.deny.del(req.Key, false)
	}
	if t.deny != nil && !outs[0].Allowed && req.Cost == 1 && req.Op != store.OpRefund && outs[0].RetryAfter != core.Never {
		// (The deny cache serves single-limit policies only: outs[0] is
		// the decision.) Redis decided at some instant between the
		// request's sending and its reply's receipt, and its RetryAfter
		// runs from then: the cached denial runs from now, the receipt,
		// so that a request the cache answers, retried at the RetryAfter
		// it is given, reaches Redis after the instant Redis gave.
		t.deny.put(req.Key, req.Now, t.cacheNow(req), outs[0], gen)
	}
	return d, nil
}

// cacheNow is the deny cache's clock: with CallerClock, the caller's, by
// which Redis decides (req.Now); otherwise the local monotonic clock, which
// keeps Redis's pace. Not req.Now: the caller read it before the request
// was sent, perhaps long before (a stalled goroutine), and a denial
// anchored there would end before Redis's, by the stall (a retry at the
// RetryAfter the cache gave was denied again by Redis under load).
func (t *table) cacheNow(req store.Request) int64 {
	if t.s.opts.CallerClock {
		return req.Now
	}
	return t.s.mono()
}

// at returns the decision's instant: Redis's, at µs, unless the caller's
// clock decides.
func (t *table) at(req store.Request, us int64) int64 {
	if t.s.opts.CallerClock {
		return req.Now
	}
	return us * 1000
}

// full decodes a record of 2 + 7 numbers per limit.
func (t *table) full(req store.Request, reply []byte) (store.Decision, error) {
	n := len(t.quotas)
	if len(reply) != 8*(2+7*n) {
		return store.Decision{}, fmt.Errorf("redisstore: policy %q: malformed reply of %d bytes", t.p.Name(), len(reply))
	}
	var vbuf [2 + 7*store.MaxLimits]int64
	v := vbuf[:2+7*n]
	for i := range v {
		var ok bool
		if v[i], ok = word(reply, i); !ok {
			return store.Decision{}, fmt.Errorf("redisstore: policy %q: malformed reply value %d", t.p.Name(), i)
		}
	}
	d := store.Decision{Taken: v[0] == 1, At: t.at(req, v[1])}
	for i := range n {
		w := v[2+7*i : 9+7*i]
		o := store.Outcome{
			Allowed:    w[0] == 1,
			Remaining:  w[1],
			ResetAfter: time.Duration(w[2]*1000 + w[5]),
			RetryAfter: time.Duration(w[3]*1000 + w[6]),
			Delay:      time.Duration(w[4] * 1000),
		}
		if w[3] < 0 {
			o.RetryAfter = core.Never
		}
		if o.Allowed {
			// An admission's retry slot carries its hold (see warmup.lua).
			o.Hold, o.RetryAfter = o.RetryAfter, 0
		}
		d.Outcomes[i] = o
	}
	return d, nil
}

// short decodes a take's short record on a policy of one GCRA or
// LeakyBucket limit g: the outcome gcra.lua's take reports, from the TAT
// (an admission) or the debt (a denial) the script found.
func (t *table) short(req store.Request, g *gcraSpec, reply []byte) (store.Decision, error) {
	o, ok0 := word(reply, 0)
	now, ok1 := word(reply, 1)
	// An admission holds at most the tolerance; a denial's debt has no
	// bound (a caller's clock may go back).
	if !ok0 || !ok1 || o > g.tol {
		return store.Decision{}, fmt.Errorf("redisstore: policy %q: malformed short reply", t.p.Name())
	}
	d := store.Decision{At: t.at(req, now)}
	if o >= 0 {
		// Admitted: the TAT is now + o, o = debt + cost·interval.
		debt := o - req.Cost*g.iv
		out := store.Outcome{Allowed: true, Remaining: (g.tol - o) / g.iv, ResetAfter: time.Duration(o * 1000)}
		if g.free >= 0 && debt > g.free {
			out.Delay = time.Duration((debt - g.free) * 1000)
		}
		d.Taken, d.Outcomes[0] = true, out
		return d, nil
	}
	debt := -o - 1
	out := store.Outcome{Remaining: max(g.tol-debt, 0) / g.iv, ResetAfter: time.Duration(debt * 1000), RetryAfter: core.Never}
	if req.Cost <= g.burst {
		out.RetryAfter = time.Duration((debt + req.Cost*g.iv - g.tol) * 1000)
	}
	d.Outcomes[0] = out
	return d, nil
}

// fallback decides req while Redis is unreachable (err says why).
func (t *table) fallback(ctx context.Context, req store.Request, err error) (store.Decision, error) {
	switch t.s.opts.FailureMode {
	case FailOpen:
		return t.open(req)
	case FailLocal:
		// One local limiter for the store's life, made at the first
		// fault and kept across policy changes (see localState): what it
		// admitted during an outage still counts in the next one until
		// it recovers by itself, so however often the store switches (a
		// flapping link) or the policy changes, this process grants at
		// most its share over any window.
		lt, lerr := t.local.table(t)
		if lerr != nil {
			return store.Decision{}, lerr
		}
		switch req.Op {
		case store.OpRefund:
			// Taken by Redis (a take in flight at the switch; the local
			// limiter's own results, of its scaled policy, are not
			// refundable): the local limiter never took it, it gives
			// nothing back.
			req.Op, req.Cost = store.OpPeek, 1
		case store.OpTake:
			if d, ok := t.overDelay(ctx, lt, req); ok {
				return d, nil
			}
		}
		d, err := lt.Do(ctx, req)
		// What the local limiter took is not refundable: a refund would go
		// to Redis, which never took it.
		d.Taken, d.Source = false, store.SourceFallback
		return d, err
	}
	if errors.Is(err, ErrUnavailable) {
		return store.Decision{}, err
	}
	return store.Decision{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// overDelay returns, when req is asked under core.WithMaxDelay and the
// local limiter lt would admit it with a longer delay, that admission
// (ok), taking nothing: the limiter turns it into a denial (core's
// capDelay), and a take the local limiter made could not be given back
// (see fallback): every such denial would stay charged to the key, whose
// delay then never came back under the bound while its clients asked
// more than the rate (a shaping limit that served nothing during an
// outage).
func (t *table) overDelay(ctx context.Context, lt store.Table, req store.Request) (store.Decision, bool) {
	limit, ok := core.MaxDelayOf(ctx)
	if !ok {
		return store.Decision{}, false
	}
	d, err := lt.Do(ctx, store.Request{Op: store.OpPeek, Key: req.Key, Cost: req.Cost, Now: req.Now})
	if err != nil {
		return store.Decision{}, false
	}
	over := false
	for i := range t.quotas {
		o := &d.Outcomes[i]
		if !o.Allowed {
			return store.Decision{}, false // a denial: the take decides it, taking nothing
		}
		over = over || o.Delay > limit
	}
	if !over {
		return store.Decision{}, false
	}
	d.Taken, d.Source = false, store.SourceFallback
	return d, true
}

// open is FailOpen's admission: every limit admits, with its whole quota
// remaining; nothing is taken (the result is not refundable).
func (t *table) open(req store.Request) (store.Decision, error) {
	if req.Op == store.OpReset {
		return store.Decision{}, nil
	}
	d := store.Decision{At: req.Now}
	for i, q := range t.quotas {
		d.Outcomes[i] = store.Outcome{Allowed: true, Remaining: q}
	}
	d.Source = store.SourceFallback
	return d, nil
}

// word returns the i-th number of a record, a little-endian double holding
// an integer, and whether it is one.
func word[R string | []byte](r R, i int) (int64, bool) {
	r = r[8*i : 8*i+8]
	b := uint64(r[0]) | uint64(r[1])<<8 | uint64(r[2])<<16 | uint64(r[3])<<24 |
		uint64(r[4])<<32 | uint64(r[5])<<40 | uint64(r[6])<<48 | uint64(r[7])<<56
	f := math.Float64frombits(b)
	if !(f >= -(1<<53) && f <= 1<<53) {
		return 0, false
	}
	v := int64(f)
	return v, float64(v) == f
}

// Idle reports (see store.Idler) whether every key of t behaves at now as
// one a new table of its policy never saw: Redis keeps the keys' state
// under the policy's shape, where a new table finds it, but FailLocal's
// local limiter keeps in the process what this process granted of its
// LocalShare during an outage and what Redis admitted since (see charge),
// which a new table would grant again.
func (t *table) Idle(now int64) bool {
	if t.local == nil {
		return true
	}
	lt := t.local.cur.Load()
	if lt == nil {
		return true // nothing charged yet
	}
	i, ok := lt.t.(store.Idler)
	return !ok || i.Idle(now)
}
