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

// pipeItems is about the most items one pipeline of a round carries (a
// call more, at most): a round sends its calls in pipelines one after the
// other, so that one cut part way (its deadline, a broken connection)
// fails its own calls only.
const pipeItems = 4096

// send pipelines items in one script call per hash tag and MaxBatch
// items, within Timeout, and returns each item's reply, whether its call
// failed, and whether it was not sent at all (bad too; its call surely
// did not run). The calls of keys a round has read back before go first,
// in pipelines of their own, then those of keys new to the node (a flood
// of new keys makes a round as long as its keys): go-redis stamps a
// pipeline's transport error on every command of it, those whose replies
// came back too, and a round stops sending once its deadline has passed,
// so that a flood fails its own calls, not the fleet's keys', and holds
// Redis for about Timeout a round at most.
func (s *Store) send(ctx context.Context, now int64, items []item) (reps []reply, bad, unsent []bool, err error) {
	reps, bad, unsent = make([]reply, len(items)), make([]bool, len(items)), make([]bool, len(items))
	if len(items) == 0 {
		return reps, bad, unsent, nil
	}
	head := []any{s.id, now / 1e6, s.life() / 1e6, s.horizon() / 1e6}
	// pipes holds each pipeline's calls as their items (built when sent:
	// a round past its deadline builds none of the rest).
	var pipes [][][]int
	for _, known := range [...]bool{true, false} {
		// A call's hashes must share a hash slot where the client spreads
		// keys over servers (a Cluster, a Ring): one call per hash tag (a
		// policy's bucket) there, and one for every tag on a single Redis.
		groups := map[string][]int{}
		var tags []string
		var class []int
		for i := range items {
			if (items[i].e.okAt != 0) == known {
				class = append(class, i)
			}
		}
		// Each round starts its class pipeItems further (its items keep
		// the shards' order from round to round): a flood filling a
		// round's Timeout leaves other items unsent each round, not the
		// same ones round after round, so that every key is sent within
		// about len(class) / pipeItems rounds.
		start := 0
		if len(class) > 0 {
			start = int(s.stats.rounds.Load() * pipeItems % uint64(len(class)))
		}
		for k := range class {
			i := class[(start+k)%len(class)]
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
		var pipe [][]int
		n := 0
		for _, tag := range tags {
			g := groups[tag]
			for len(g) > 0 {
				m := min(len(g), s.opts.MaxBatch)
				pipe = append(pipe, g[:m])
				g, n = g[m:], n+m
				if n >= pipeItems {
					pipes, pipe, n = append(pipes, pipe), nil, 0
				}
			}
		}
		if len(pipe) > 0 {
			pipes = append(pipes, pipe)
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
	var errs []error
	calls, skipped := 0, 0
	for _, p := range pipes {
		calls += len(p)
		if ctx.Err() != nil {
			// The round's deadline has passed: the rest waits for the
			// next round, whole.
			for _, idx := range p {
				for _, j := range idx {
					bad[j], unsent[j] = true, true
				}
			}
			skipped += len(p)
			continue
		}
		cs := make([]*call, len(p))
		for i, idx := range p {
			cs[i] = s.callOf(items, idx, now, head)
		}
		run(cs, false)
		var missing []*call
		for _, c := range cs {
			if e := c.cmd.Err(); e != nil && redis.HasErrorPrefix(e, "NOSCRIPT") {
				missing = append(missing, c)
			}
		}
		if len(missing) > 0 {
			run(missing, true) // NOSCRIPT: the script did not run, sending it again is safe
		}
		for _, c := range cs {
			e := parse(c, reps)
			for _, j := range c.idx {
				bad[j] = e != nil
			}
			if e != nil {
				errs = append(errs, e)
			}
		}
	}
	failed := len(errs) + skipped
	if skipped > 0 {
		errs = append(errs, fmt.Errorf("%d calls not sent within Timeout %v: %w", skipped, s.opts.Timeout, context.DeadlineExceeded))
	}
	if failed > 0 {
		err = fmt.Errorf("localfirst: %d of %d sync calls failed: %w", failed, calls, errors.Join(errs...))
	}
	return reps, bad, unsent, err
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
