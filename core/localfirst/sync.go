package localfirst

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"crypto/sha256"

	"github.com/redis/go-redis/v9"
)

// item is one window counter of one round: what the node pushes to it
// and, when s is set, the slot its merged count goes back to.
type item struct {
	e    *entry
	s    *slot // nil for a window that no longer counts: push only
	idx  int64 // the slot's window
	key  string
	push int64
	ttl  int64 // ms
	// room and guess are, for the current window, what the claims share
	// and how many nodes this one guesses share the key; room is -1 for a
	// window claimed nothing on.
	room, guess int64
}

// name returns the Redis key prefix of key's counters:
// prefix{fingerprint:bucket}:hash: — the fingerprint and hash are the
// first 8 and 16 bytes of SHA-256 digests, so no raw key reaches Redis,
// and every counter of a bucket shares a hash slot.
func (t *table) name(key string) string {
	h := sha256.New()
	h.Write(t.fp[:])
	h.Write([]byte(key))
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	b := binary.BigEndian.Uint64(sum[:8]) % uint64(t.s.opts.Buckets)
	var sb strings.Builder
	sb.WriteString(t.s.opts.Prefix)
	sb.WriteByte('{')
	sb.WriteString(hex.EncodeToString(t.fp[:8]))
	sb.WriteByte(':')
	sb.WriteString(strconv.FormatUint(b, 10))
	sb.WriteString("}:")
	sb.WriteString(hex.EncodeToString(sum[:16]))
	sb.WriteByte(':')
	return sb.String()
}

// counterKey is the key of limit i's counter of window idx.
func counterKey(name string, i int, idx int64) string {
	return name + strconv.Itoa(i) + ":" + strconv.FormatInt(idx, 10)
}

// Sync runs one round: for every key this node decided within the last
// Track rounds (or holds unsynced units of), it adds the units admitted
// since the last round to each current window's counter in Redis and reads
// the merged counts back, in one script call per MaxBatch counters (on a
// Cluster or Ring, per bucket and MaxBatch counters), all pipelined in one
// round trip bounded by Timeout. A key's view is then the merged count
// plus what the node admitted since. With SkipIdle, a tracked key with
// nothing to push and a live claim may go unread (see Options.SkipIdle).
//
// A call that fails leaves its units to the next round (a call whose reply
// was lost may have been applied: its units then count twice, which only
// denies more), and its keys stale until a round reads them. Run calls
// Sync every SyncPeriod; tests call it directly to drive the rounds.
func (s *Store) Sync(ctx context.Context) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	round := s.round.Load() + 1
	now := s.opts.Clock.Now().UnixNano()
	s.mu.Lock()
	tables := append([]*table(nil), s.tables...)
	s.mu.Unlock()
	var items []item
	var entries []*entry
	for _, t := range tables {
		for i := range t.shards {
			sh := &t.shards[i]
			sh.mu.Lock()
			sh.list = t.collect(sh, round, now, sh.list[:0:0], &items, &entries)
			sh.mu.Unlock()
		}
	}
	reps, bad, err := s.send(ctx, now, items)
	for i := range items {
		it := &items[i]
		sh := it.e.sh
		sh.mu.Lock()
		if it.s != nil && it.s.idx == it.idx {
			it.s.inflight -= it.push
			if bad[i] {
				it.s.delta += it.push
			} else {
				r := &reps[i]
				it.s.global, it.s.nodes, it.s.claims, it.s.div = r[0], r[1], r[2], r[3]
				if it.room < 0 {
					it.s.div = 0
				}
			}
		}
		if bad[i] {
			it.e.failed = true
		}
		sh.mu.Unlock()
	}
	for _, e := range entries {
		e.sh.mu.Lock()
		if !e.failed {
			e.okRound, e.okAt = round, now
		}
		e.retry = e.failed
		e.failed = false
		e.sh.mu.Unlock()
	}
	s.stats.rounds.Add(1)
	if err != nil {
		s.stats.failed.Add(1)
	}
	s.round.Store(round)
	return err
}

// collect appends to items the counters of sh's entries (sh locked) that
// round sends, and to entries those it reads back whole; it returns the
// entries sh keeps listing (appended to keep), dropping those whose
// windows have all ended with nothing to push, and those evicted or reset
// with nothing to push.
func (t *table) collect(sh *shard, round uint64, now int64, keep []*entry, items *[]item, entries *[]*entry) []*entry {
	slack := int64(max(time.Second, 2*t.s.opts.SyncPeriod+t.s.opts.Timeout))
	for _, e := range sh.list {
		e.sh = sh
		tracked := !e.gone && round-e.touched <= uint64(t.s.opts.Track)
		read := tracked && (!t.s.opts.SkipIdle || t.due(e, now))
		live := false
		n0 := len(*items)
		for i := range t.cs {
			c := &t.cs[i]
			ws := e.ws[2*i : 2*i+2]
			cur := max(spanIndex(now, c.window), e.newest[i])
			first := cur
			if c.sliding {
				first--
			}
			add := func(s *slot, idx int64) {
				if e.name == "" {
					e.name = t.name(e.key)
				}
				end := (idx + 1) * c.window // the counter counts until then, and
				if c.sliding {
					end += c.window // as the previous window for one more
				}
				it := item{e: e, idx: idx, key: counterKey(e.name, i, idx), push: s.delta, ttl: max(1, (end-now+slack)/1e6), room: -1}
				if idx == cur && read {
					var v view
					c.look(&v, ws, now, cur)
					it.room, it.guess = c.room(&v), t.guess(&v)
				}
				if idx >= first {
					it.s = s
					s.inflight += s.delta
				}
				s.delta = 0
				*items = append(*items, it)
			}
			for j := range ws {
				s := &ws[j]
				switch {
				case s.idx < first && s.delta != 0:
					add(s, s.idx) // a window that no longer counts: push its units only
				case s.idx >= first && (s.delta != 0 || s.global != 0):
					live = true
					if !read && s.delta != 0 {
						add(s, s.idx)
					}
				}
			}
			if read {
				for idx := first; idx <= cur; idx++ {
					add(at(ws, idx, true), idx)
				}
			}
		}
		if read {
			e.failed = false
			*entries = append(*entries, e)
		}
		if tracked || live || len(*items) > n0 {
			keep = append(keep, e)
			continue
		}
		if !e.gone {
			sh.drop(e)
		}
	}
	return keep
}

// due reports whether a round of a SkipIdle store must read e back (e
// tracked): it has units to push in a window that counts, a current window
// it holds no claim on, a call for it failed, or its claim would lapse
// before the next round (read at least every SyncPeriod + Timeout). A tracked key that is not
// due keeps deciding on its live claim: skipping its read saves the
// round's work on keys nothing happened to, at the cost of a view of the
// other nodes' counts up to SyncPeriod + Timeout old (which the claim
// makes safe: the claims never add up beyond what remains).
func (t *table) due(e *entry, now int64) bool {
	o := &t.s.opts
	if e.retry || now-e.okAt >= int64(o.SyncPeriod+o.Timeout) {
		return true
	}
	for i := range t.cs {
		c := &t.cs[i]
		ws := e.ws[2*i : 2*i+2]
		cur := max(spanIndex(now, c.window), e.newest[i])
		if s := at(ws, cur, false); s == nil || s.div == 0 || s.delta != 0 {
			return true
		}
		if s := at(ws, cur-1, false); c.sliding && s != nil && s.delta != 0 {
			return true
		}
	}
	return false
}

// send pipelines items in one script call per hash tag and MaxBatch
// counters, within Timeout, and returns each item's reply (the merged
// count, the nodes registered, the other nodes' claims and the claim's
// divisor: see sync.lua) and whether its call failed.
func (s *Store) send(ctx context.Context, now int64, items []item) (reps [][4]int64, bad []bool, err error) {
	reps, bad = make([][4]int64, len(items)), make([]bool, len(items))
	if len(items) == 0 {
		return reps, bad, nil
	}
	life := s.life() / 1e6
	// A call's keys must share a hash slot where the client spreads keys
	// over servers (a Cluster, a Ring): one call per hash tag there, and
	// one for every tag on a single Redis.
	_, single := s.client.(*redis.Client)
	groups := map[string][]int{}
	var tags []string
	for i := range items {
		tag := ""
		if !single {
			k := items[i].key
			tag = k[:strings.IndexByte(k, '}')]
		}
		if groups[tag] == nil {
			tags = append(tags, tag)
		}
		groups[tag] = append(groups[tag], i)
	}
	type call struct {
		idx  []int
		keys []string
		args []any
		cmd  *redis.Cmd
	}
	var calls []*call
	for _, tag := range tags {
		g := groups[tag]
		for len(g) > 0 {
			n := min(len(g), s.opts.MaxBatch)
			c := &call{idx: g[:n], args: []any{s.id, now / 1e6, life}}
			for _, j := range c.idx {
				it := &items[j]
				c.keys = append(c.keys, it.key)
				c.args = append(c.args, it.push, it.ttl, it.room, it.guess)
			}
			calls = append(calls, c)
			g = g[n:]
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	run := func(cs []*call, eval bool) {
		pipe := s.client.Pipeline()
		for _, c := range cs {
			if eval {
				c.cmd = s.script.Eval(ctx, pipe, c.keys, c.args...)
			} else {
				c.cmd = s.script.EvalSha(ctx, pipe, c.keys, c.args...)
			}
		}
		s.stats.calls.Add(uint64(len(cs)))
		_, _ = pipe.Exec(ctx) // each command's error is read below
	}
	run(calls, false)
	var missing []*call
	for _, c := range calls {
		if e := c.cmd.Err(); e != nil && redis.HasErrorPrefix(e, "NOSCRIPT") {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		run(missing, true) // NOSCRIPT: the script did not run, sending it again is safe
	}
	var errs []error
	for _, c := range calls {
		got, e := c.cmd.Int64Slice()
		if e == nil && len(got) != 4*len(c.idx) {
			e = fmt.Errorf("%d numbers for %d counters", len(got), len(c.idx))
		}
		for k, j := range c.idx {
			if e != nil {
				bad[j] = true
			} else {
				reps[j] = [4]int64(got[4*k : 4*k+4])
			}
		}
		if e != nil {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		err = fmt.Errorf("localfirst: %d of %d sync calls failed: %w", len(errs), len(calls), errors.Join(errs...))
	}
	return reps, bad, err
}
