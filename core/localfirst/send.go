package localfirst

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// reply is one item's answer (see sync.lua): five numbers, and for a
// bucket the state before its lease.
type reply struct {
	n   [5]int64
	pre float64
}

// call is one script call: its items (indexes into the round's), hashes
// and arguments.
type call struct {
	idx  []int
	keys []string
	args []any
	cmd  *redis.Cmd
}

// send pipelines items in one script call per hash tag and MaxBatch
// items, within Timeout, and returns each item's reply and whether its
// call failed.
func (s *Store) send(ctx context.Context, now int64, items []item) (reps []reply, bad []bool, err error) {
	reps, bad = make([]reply, len(items)), make([]bool, len(items))
	if len(items) == 0 {
		return reps, bad, nil
	}
	head := []any{s.id, now / 1e6, s.life() / 1e6, s.horizon() / 1e6}
	// A call's hashes must share a hash slot where the client spreads keys
	// over servers (a Cluster, a Ring): one call per hash tag (a policy's
	// bucket) there, and one for every tag on a single Redis.
	groups := map[string][]int{}
	var tags []string
	for i := range items {
		tag := ""
		if !s.single {
			h := items[i].hash
			tag = h[:strings.IndexByte(h, '}')]
		}
		if groups[tag] == nil {
			tags = append(tags, tag)
		}
		groups[tag] = append(groups[tag], i)
	}
	var calls []*call
	for _, tag := range tags {
		g := groups[tag]
		for len(g) > 0 {
			n := min(len(g), s.opts.MaxBatch)
			calls = append(calls, s.callOf(items, g[:n], now, head))
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
		e := parse(c, reps)
		for _, j := range c.idx {
			bad[j] = e != nil
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

// callOf returns the call of items idx in the round that began at now:
// its hashes, and after head the values of each hash and the values of
// each item (see sync.lua).
func (s *Store) callOf(items []item, idx []int, now int64, head []any) *call {
	c := &call{idx: idx}
	at := map[string]int{}
	var hashes []any // five values per hash
	key := func(it *item, h string) int {
		if i, ok := at[h]; ok {
			return i
		}
		c.keys = append(c.keys, h)
		at[h] = len(c.keys)
		var q1, q2 any = 0, 0
		var span, rel int64
		if l := &it.ls[it.li]; l.kind.bucket() {
			span, rel = l.span, now-it.idx*l.span
			if l.kind == kindGCRA {
				q1, q2 = l.interval, l.tol
			} else {
				q1, q2 = l.burst, strconv.FormatFloat(l.perSec/float64(time.Second), 'g', -1, 64)
			}
		}
		hashes = append(hashes, it.ttl, q1, q2, span, rel)
		return len(c.keys)
	}
	var args []any
	for _, j := range idx {
		it := &items[j]
		if it.kind == 'w' {
			args = append(args, "w", key(it, it.hash), it.e.field, it.push, it.x1, it.x2, it.x3)
			continue
		}
		args = append(args, string(it.kind), key(it, it.hash), key(it, it.prev), it.e.field, it.push, it.x1, it.x2, it.x3, it.x4)
	}
	c.args = append(append(append(make([]any, 0, len(head)+len(hashes)+len(args)), head...), hashes...), args...)
	return c
}

// parse reads c's reply into reps, or returns the call's error.
func parse(c *call, reps []reply) error {
	got, err := c.cmd.Slice()
	if err != nil {
		return err
	}
	if len(got) != 5*len(c.idx) {
		return fmt.Errorf("%d values for %d items", len(got), len(c.idx))
	}
	for k, j := range c.idx {
		r := &reps[j]
		for m := range r.n {
			switch v := got[5*k+m].(type) {
			case int64:
				r.n[m] = v
				if m == 0 {
					r.pre = float64(v)
				}
			case string:
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return fmt.Errorf("reply %q: %w", v, err)
				}
				if m == 0 {
					r.pre = f
				}
				r.n[m] = int64(f)
			default:
				return fmt.Errorf("reply %v (%T)", v, v)
			}
		}
	}
	return nil
}
