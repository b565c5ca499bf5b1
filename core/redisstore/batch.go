package redisstore

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/circuit"
	"github.com/redis/go-redis/v9"
)

// call is one decision waiting for its pipeline: keys and args (op, cost,
// now, taken, slack; see main.lua) are those of the library's single
// decision function.
type call struct {
	sc    *compiled
	keys  []string
	args  []any
	trial bool   // the breaker's half-open trial
	reply []byte // the decision's record (see step.lua), in buf
	buf   []byte // the call's own: its reply is read into it
	err   error
	done  chan struct{}
	cmd   []any    // the command's arguments, when it is sent alone
	batch [1]*call // the call alone, for combine
}

var callPool = sync.Pool{New: func() any { return &call{done: make(chan struct{}, 1)} }}

var timerPool = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}}

// errTimeout is a decision that did not complete within Options.Timeout.
var errTimeout = fmt.Errorf("decision timed out: %w", context.DeadlineExceeded)

// exec hands c to a pipeline worker and waits for it, at most
// Options.Timeout (and ctx): the round trip itself runs on the worker,
// bounded by the store's ioTimeout, so that the caller's deadline holds
// whatever the client's options, and a late reply leaves its connection
// in the pool. completed reports whether c is done with (its err is a
// reply of Redis, or nil); otherwise a worker may still use c, which must
// not be reused.
func (s *Store) exec(ctx context.Context, c *call) (completed bool, err error) {
	if s.direct && !c.trial && !s.slow() {
		if ok, completed, err := s.combine(ctx, c); ok {
			return completed, err
		}
	}
	t := pooledTimer(s.opts.Timeout)
	defer releaseTimer(t)
	select {
	case s.queue <- c:
	case <-t.C:
		// Every worker busy past the deadline: a fault (a stalled Redis
		// holds them), the trial included.
		s.stats.timeouts.Add(1)
		s.br.Fault(errTimeout, c.trial)
		return true, errTimeout
	case <-ctx.Done():
		if c.trial {
			s.br.Release()
		}
		return true, ctx.Err()
	case <-s.quit:
		if c.trial {
			s.br.Release()
		}
		return true, fmt.Errorf("redisstore: store closed: %w", ErrUnavailable)
	}
	select {
	case <-c.done:
		return true, c.err
	case <-t.C:
		s.stats.timeouts.Add(1)
		if !c.trial { // the trial's round trip reports itself
			s.br.Fault(errTimeout, false)
		}
		return false, errTimeout
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// slow reports whether the round trip measured is a sizeable part of
// Options.Timeout (or above it), where a missed deadline is likely.
func (s *Store) slow() bool { return time.Duration(s.rttNs.Load()) >= s.opts.Timeout/4 }

// worker runs queued calls in pipelines of up to MaxBatch. One worker at a
// time collects a batch (the others wait for their turn): while other
// round trips are in flight it goes on collecting for a little while (see
// gather), then it sends the batch and the next worker collects.
func (s *Store) worker() {
	defer s.wg.Done()
	batch := make([]*call, 0, s.opts.MaxBatch)
	cmds := make([]redis.Cmder, 0, s.opts.MaxBatch)
	t := time.NewTimer(time.Hour)
	t.Stop()
	for {
		var ok bool
		batch, ok = s.gather(batch[:0], t)
		if !ok {
			return
		}
		cmds = s.run(batch, cmds[:0])
		s.ended()
	}
}

// gather collects the next batch into batch, in the collector's turn; it
// reports false when the store closes. A batch goes when it is full, when
// no round trip is in flight, or when the last one was sent a while ago
// (half the round trip measured, at most maxGather): on a fast link,
// decisions arriving while one round trip is out wait for it, and go
// together in the next (one script call deciding them all costs Redis far
// less than one each); on a slow one, a round trip starts at least every
// maxGather, however many are out (up to Options.Pipelines).
func (s *Store) gather(batch []*call, t *time.Timer) ([]*call, bool) {
	s.collect.Lock()
	defer s.collect.Unlock()
	select {
	case c := <-s.queue:
		batch = append(batch, c)
	case <-s.quit:
		return batch, false
	}
	for {
	fill:
		for len(batch) < s.opts.MaxBatch {
			select {
			case c := <-s.queue:
				batch = append(batch, c)
			default:
				break fill
			}
		}
		if len(batch) >= s.opts.MaxBatch || s.inflight.Load() == 0 {
			break
		}
		wait := min(time.Duration(s.rttNs.Load())/2, maxGather) - time.Duration(nanotime()-s.lastSent.Load())
		if wait <= 0 {
			break
		}
		t.Reset(wait)
		select {
		case c := <-s.queue:
			batch = append(batch, c)
		case <-s.roundEnded:
		case <-t.C:
		case <-s.quit:
			t.Stop()
			// Sent all the same: each caller waits for its call.
			return batch, true
		}
		t.Stop()
	}
	s.inflight.Add(1)
	s.lastSent.Store(nanotime())
	return batch, true
}

// maxGather bounds how long a batch waits for round trips in flight.
const maxGather = time.Millisecond

// ended records the end of a round trip gather counted.
func (s *Store) ended() {
	s.inflight.Add(-1)
	select {
	case s.roundEnded <- struct{}{}:
	default:
	}
}

// nanotime is a monotonic clock in ns.
func nanotime() int64 { return int64(time.Since(clockBase)) }

var clockBase = time.Now()

// run sends batch as one pipeline: an FCALL per call, or an EVALSHA when
// Redis has no functions (before 7.0, or forbidden) or Options.NoFunctions
// says so. With FCALL, the calls of one policy whose keys may share a
// script (any keys, but in one hash slot on a Cluster) are coalesced into
// one FCALL of the library's batch function, which decides them in order
// exactly as one FCALL each would, and a take alone is an FCALL of the
// library's take function. A single command goes as a plain command, not a
// pipeline of one. The calls whose
// function or script Redis does not hold (FUNCTION FLUSH, SCRIPT FLUSH, a
// restart, a new Cluster node) are sent again once: an FCALL after
// FUNCTION LOAD of their libraries, or an EVAL, which loads the script.
func (s *Store) run(batch []*call, cmds []redis.Cmder) []redis.Cmder {
	ctx, cancel := context.WithTimeout(s.ctx, s.ioTimeout)
	defer cancel()
	return s.runIn(ctx, batch, cmds, nil)
}

// runIn is run within ctx. For a round trip on a caller's goroutine, ctx
// ends at the decisions' deadline, and parent is what ctx was derived
// from: a fault after the deadline, while parent goes on, is a missed
// deadline (errTimeout) for each call it failed.
func (s *Store) runIn(ctx context.Context, batch []*call, cmds []redis.Cmder, parent context.Context) []redis.Cmder {
	fcall := !s.noFunctions.Load()
	var one [1][]*call
	groups := s.groups(one[:0], batch, fcall)
	epoch := s.br.Epoch() // what the breaker was when the round trip was sent
	start := time.Now()
	for _, g := range groups {
		cmds = append(cmds, command(ctx, g, fcall, false))
	}
	s.send(ctx, cmds)
	rtt := time.Since(start)
	retry, answered := retries(groups, cmds)
	if answered {
		s.observeRTT(rtt, false)
	}
	var split map[int][]redis.Cmder // groups retried with a call each
	if len(retry) > 0 {
		split = s.retry(ctx, groups, cmds, retry, fcall)
	}
	for i, g := range groups {
		if sc, ok := split[i]; ok {
			for j, c := range g {
				c.record(sc[j])
			}
			continue
		}
		if len(g) == 1 {
			g[0].record(cmds[i])
			continue
		}
		records(cmds[i].(*redis.ZeroCopyStringCmd), g)
	}
	s.report(batch, epoch)
	late := parent != nil && ctx.Err() != nil && parent.Err() == nil
	for _, c := range batch {
		if late && c.err != nil {
			s.stats.timeouts.Add(1)
			c.err = errTimeout
		}
		c.done <- struct{}{}
	}
	for i := range cmds {
		cmds[i] = nil
	}
	return cmds
}

// groups appends to dst the calls of batch that one command decides
// together: with functions, the calls of one script (see group); without,
// each call alone.
func (s *Store) groups(dst [][]*call, batch []*call, fcall bool) [][]*call {
	if fcall && len(batch) > 1 {
		return s.group(batch)
	}
	for i := range batch {
		dst = append(dst, batch[i:i+1])
	}
	return dst
}

// retries returns the commands of cmds to send again (a script Redis does
// not hold, or a batch call that failed as a whole), and whether Redis
// answered every command (no fault).
func retries(groups [][]*call, cmds []redis.Cmder) (retry []int, answered bool) {
	answered = true
	for i, cmd := range cmds {
		switch classify(cmd.Err()) {
		case classMissing:
			retry = append(retry, i)
		case classConflict, classOther:
			// A script error fails a whole batch call: its decisions
			// are retried one by one, so that one key's conflict is
			// not its neighbours'.
			if len(groups[i]) > 1 {
				retry = append(retry, i)
			}
		case classFault:
			answered = false
		}
	}
	return retry, answered
}

// retry sends again the commands retry names, once the scripts are loaded,
// in place in cmds; it returns the commands of the groups it retried with a
// call each, by group.
func (s *Store) retry(ctx context.Context, groups [][]*call, cmds []redis.Cmder, retry []int, fcall bool) map[int][]redis.Cmder {
	if fcall && slices.ContainsFunc(retry, func(i int) bool { return classify(cmds[i].Err()) == classMissing }) {
		fcall = s.loadFunctions(ctx)
	}
	var split map[int][]redis.Cmder
	var again []redis.Cmder
	for _, i := range retry {
		if len(groups[i]) > 1 && (!fcall || classify(cmds[i].Err()) != classMissing) {
			// No functions after all: an EVAL per call.
			if split == nil {
				split = map[int][]redis.Cmder{}
			}
			for _, c := range groups[i] {
				cmd := command(ctx, []*call{c}, fcall, !fcall)
				split[i] = append(split[i], cmd)
				again = append(again, cmd)
			}
			continue
		}
		cmds[i] = command(ctx, groups[i], fcall, true)
		again = append(again, cmds[i])
	}
	s.send(ctx, again)
	return split
}

// send sends cmds: one alone as a plain command, several in a pipeline.
// Each command's outcome is its own. None is ever sent twice: they are
// go-redis's NoRetry commands (see command).
func (s *Store) send(ctx context.Context, cmds []redis.Cmder) {
	if len(cmds) == 1 {
		_ = s.client.Process(ctx, cmds[0])
		return
	}
	_, _ = s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, cmd := range cmds {
			_ = p.Process(ctx, cmd)
		}
		return nil
	})
}

// opCodes are the ops' codes (see step.lua), and opArgs the same boxed
// once.
var (
	opCodes = [...]string{store.OpTake: "T", store.OpPeek: "P", store.OpRefund: "F", store.OpReset: "R"}
	opArgs  = [...]any{opCodes[0], opCodes[1], opCodes[2], opCodes[3]}
)

// Arguments boxed once: Redis TIME's "now", the take function's defaults,
// and small key counts.
var (
	nowRedis  any = int64(-1)
	zeroArg   any = int64(0)
	oneArg    any = int64(1)
	numKeyArg     = func() (a [16]any) {
		for i := range a {
			a[i] = strconv.Itoa(i)
		}
		return a
	}()
)

func numKeys(n int) any {
	if n < len(numKeyArg) {
		return numKeyArg[n]
	}
	return n
}

// command returns the command deciding g: one call (FCALL of the take or
// the single decision function, or EVALSHA, or with load EVAL, which loads
// the script), or several, coalesced in one FCALL of the batch function.
// Its arguments point into the calls (no copy of a key or a value), and
// its reply is read into the call's buffer (or, for a batch, one of its
// own). go-redis never sends such a command again (ZeroCopyStringCmd is
// NoRetry, and so is a pipeline holding one, on a Cluster too): when its
// reply is lost (a connection broken after the write), the decision is a
// fault, and Redis applied it at most once — a take counted once, a
// refund given back once.
func command(ctx context.Context, g []*call, fcall, load bool) redis.Cmder {
	c := g[0]
	if len(g) > 1 {
		n := 0
		for _, c := range g {
			n += len(c.keys)
		}
		a := make([]any, 0, 5+n+4*len(g))
		a = append(a, "fcall", c.sc.batchArg, numKeys(n))
		for _, c := range g {
			for i := range c.keys {
				a = append(a, &c.keys[i])
			}
		}
		a = append(a, c.args[4]) // slack: one store's
		for _, c := range g {
			if c.args[0] == opArgs[store.OpTake] && c.args[2] == nowRedis && c.args[3] == zeroArg {
				a = append(a, c.args[1]) // a take on Redis TIME: its cost alone
				continue
			}
			a = append(a, c.args[:4]...)
		}
		a = append(a, c.sc.specArg)
		return redis.NewZeroCopyStringCmd(ctx, make([]byte, len(g)*batchPart(c.sc)+2), a...)
	}
	a := c.cmd[:0]
	take := fcall && c.args[0] == opArgs[store.OpTake]
	switch {
	case take:
		a = append(a, "fcall", c.sc.takeArg)
	case fcall:
		a = append(a, "fcall", c.sc.fnArg)
	case load:
		a = append(a, "eval", c.sc.script().src)
	default:
		a = append(a, "evalsha", c.sc.script().shaArg)
	}
	a = append(a, numKeys(len(c.keys)))
	for i := range c.keys {
		a = append(a, &c.keys[i])
	}
	if !take {
		a = append(a, c.args...)
	} else {
		// take.lua's arguments: cost, now, slack, as far as they differ
		// from 1, Redis TIME and 0.
		cost, now, slack := c.args[1], c.args[2], c.args[4]
		switch {
		case slack != zeroArg:
			a = append(a, cost, now, slack)
		case now != nowRedis:
			a = append(a, cost, now)
		case cost != oneArg:
			a = append(a, cost)
		}
	}
	a = append(a, c.sc.specArg)
	c.cmd = a
	if cap(c.buf) < c.sc.record+2 {
		c.buf = make([]byte, c.sc.record+2)
	}
	return redis.NewZeroCopyStringCmd(ctx, c.buf[:c.sc.record+2], a...)
}

// maxBatchError bounds the text of an error a batch reports for one of its
// decisions (see batch.lua).
const maxBatchError = 200

// batchPart is the most bytes one decision takes in a batch's reply.
func batchPart(sc *compiled) int { return 1 + max(sc.record, maxBatchError+1) }

// shortRecord is the bytes of a short record (see step.lua).
const shortRecord = 16

// fits reports whether n bytes are a record of sc's script: a whole one,
// or for a policy of one GCRA or LeakyBucket limit a short one.
func (sc *compiled) fits(n int) bool { return n == sc.record || (n == shortRecord && sc.gcra != nil) }

// record takes c's reply from cmd: one record of its script's.
func (c *call) record(cmd redis.Cmder) {
	n, err := cmd.(*redis.ZeroCopyStringCmd).Result()
	switch {
	case err != nil:
		c.err = err
	case !c.sc.fits(n):
		c.err = fmt.Errorf("redisstore: malformed reply of %d bytes", n)
	default:
		c.reply = c.buf[:n]
	}
}

// batchError is an error a batch call reported for one of its decisions.
type batchError string

func (e batchError) Error() string { return string(e) }

// RedisError marks it as an error reply (see redis.Error).
func (batchError) RedisError() {}

// records hands each call of g its part of cmd's reply (see batch.lua):
// 'r' and its record, 'c' and its short record, or 'e' and an error's text
// ended by a NUL byte.
func records(cmd *redis.ZeroCopyStringCmd, g []*call) {
	n, err := cmd.Result()
	r := cmd.Bytes()[:n]
	for _, c := range g {
		switch {
		case err != nil:
			c.err = err
		case len(r) >= 1+c.sc.record && r[0] == 'r':
			c.buf = append(c.buf[:0], r[1:1+c.sc.record]...)
			c.reply = c.buf
			r = r[1+c.sc.record:]
		case len(r) >= 1+shortRecord && r[0] == 'c' && c.sc.gcra != nil:
			c.buf = append(c.buf[:0], r[1:1+shortRecord]...)
			c.reply = c.buf
			r = r[1+shortRecord:]
		case len(r) > 0 && r[0] == 'e' && bytes.IndexByte(r, 0) > 0:
			end := bytes.IndexByte(r, 0)
			c.err = batchError(r[1:end])
			r = r[end+1:]
		default:
			err = fmt.Errorf("redisstore: malformed batch reply of %d bytes for %d decisions", n, len(g))
			c.err = err
		}
	}
	if err == nil && len(r) > 0 {
		for _, c := range g {
			c.reply, c.err = nil, fmt.Errorf("redisstore: malformed batch reply of %d bytes for %d decisions", n, len(g))
		}
	}
}

// report tells the breaker how batch's round trip went, before its calls
// are handed back (they may be reused then): a fault, or an answer of
// Redis (an error reply that is not a fault, such as WRONGTYPE, is one).
// A function or script still missing after its reload is a fault.
func (s *Store) report(batch []*call, epoch uint64) {
	if s.ctx.Err() != nil {
		return // closed: the round trip was cut short, it says nothing
	}
	var fault error
	trial, answered, slotOnly := false, false, true
	for _, c := range batch {
		trial = trial || c.trial
		if cl := classify(c.err); cl == classFault || cl == classMissing {
			fault = c.err
			slotOnly = slotOnly && slotLocal(c.err)
		} else {
			answered = true
		}
	}
	if fault != nil && slotOnly && answered {
		// Redis answered the round trip: the replies about one slot
		// (TRYAGAIN, MOVED, ASK; a slot in migration) are their
		// decisions' faults, not the store's. Taken for a round trip
		// unanswered, a busy store whose every round trip carried one
		// such decision opened its breaker during a resharding.
		s.stats.faults.Add(1)
		s.br.Answered(epoch)
		return
	}
	if fault != nil {
		s.stats.faults.Add(1)
		s.br.Fault(fault, trial)
		if circuit.Soft(fault) {
			// Its connection stopped answering: a failover may have
			// black-holed every connection open then, idle ones too,
			// which the breaker's trials would otherwise meet one by
			// one, each waiting the bound.
			s.bounded.FlushSoon()
		}
		return
	}
	s.br.Answered(epoch)
}

// group splits batch, in order, into runs of calls that one script call
// may decide together: those of one policy's library and, on a Cluster,
// one hash slot, on a Ring, one shard. A call's place in its group keeps
// the queue's order.
func (s *Store) group(batch []*call) [][]*call {
	type gkey struct {
		spec  string // one policy's limits: one call of the batch function
		slot  uint16
		shard *redis.Client // on a Ring: the shard of the call's keys
	}
	idx := make([]int, len(batch)) // each call's group
	var kbuf [8]gkey
	keys := kbuf[:0]
	var many map[gkey]int // past 8 groups
	var count []int
	for ci, c := range batch {
		k := gkey{spec: c.sc.spec}
		if s.cluster && len(c.keys) > 0 {
			k.slot = slot(c.keys[0])
		}
		if s.ring != nil && len(c.keys) > 0 {
			// A Ring routes a call by its first key: one carrying keys
			// of several shards decided the others on the wrong shard,
			// beside their own state (a limit once per shard).
			k.shard, _ = s.ring.GetShardClientForKey(c.keys[0])
		}
		i := -1
		if many != nil {
			if j, ok := many[k]; ok {
				i = j
			}
		} else {
			for j := range keys {
				if keys[j] == k {
					i = j
					break
				}
			}
		}
		if i < 0 {
			i = len(keys)
			keys = append(keys, k)
			count = append(count, 0)
			if many == nil && len(keys) > len(kbuf) {
				many = make(map[gkey]int, 2*len(keys))
				for j, k := range keys {
					many[k] = j
				}
			} else if many != nil {
				many[k] = i
			}
		}
		idx[ci] = i
		count[i]++
	}
	all := make([]*call, 0, len(batch)) // the groups, one after another
	groups := make([][]*call, len(keys))
	for i, n := range count {
		groups[i] = all[len(all) : len(all) : len(all)+n]
		all = all[:len(all)+n]
	}
	for ci, c := range batch {
		i := idx[ci]
		groups[i] = append(groups[i], c)
	}
	return groups
}

// slot is Redis Cluster's hash slot of key: CRC16 (XMODEM) of its hash
// tag (the part between the first { and the next }, when not empty) or of
// the whole key, modulo 16384.
func slot(key string) uint16 {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for k := 0; k < len(key); k++ {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^key[k]]
	}
	return crc % 16384
}

// crcTable is CRC16 (XMODEM, polynomial 0x1021)'s table: the CRC of each
// byte, so that slot takes a byte at a time, not a bit.
var crcTable = func() (t [256]uint16) {
	for b := range t {
		crc := uint16(b) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[b] = crc
	}
	return t
}()

// loadFunctions loads the library (on every master of a Cluster) for
// calls that found it missing and reports whether they may be called. A
// Redis that refuses FUNCTION LOAD (unknown command, no permission) is
// not asked again: the store uses EVALSHA from then on. A fault (Redis
// unreachable, or refusing writes for now: READONLY, OOM, LOADING, ...)
// is not such a refusal: the next call finding the library missing loads
// it again.
func (s *Store) loadFunctions(ctx context.Context) bool {
	err := s.loadLibrary(ctx)
	if err != nil {
		if classify(err) != classFault {
			if s.noFunctions.CompareAndSwap(false, true) {
				s.logger().Info("redisstore: redis refuses FUNCTION LOAD, using EVALSHA", "err", err)
			}
		}
		return false
	}
	return true
}

// loadLibrary loads the function library every policy is decided with (on
// every master of a Cluster, every shard of a Ring).
func (s *Store) loadLibrary(ctx context.Context) error {
	load := func(ctx context.Context, c redis.Cmdable) error {
		err := c.FunctionLoad(ctx, code.lib).Err()
		if err != nil && strings.Contains(err.Error(), "already exists") {
			return nil
		}
		return err
	}
	if cc, ok := s.client.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return load(ctx, c) })
	}
	if s.ring != nil {
		// (One FUNCTION LOAD through a Ring reaches one shard, at random:
		// the others' calls found the library still missing after their
		// reload, a fault that opened the breaker.)
		return s.ring.ForEachShard(ctx, func(ctx context.Context, c *redis.Client) error { return load(ctx, c) })
	}
	return load(ctx, s.client)
}

// maxProbed bounds the policies whose scripts Check runs.
const maxProbed = 64

// preload loads the library in the background when the store's first
// policy is bound, so that its first decision does not pay the load's
// round trips (three instead of one: on a 40 ms link, a missed deadline);
// the policies bound later share it. A load that fails is tried again at
// the next bind; a decision finding the function missing meanwhile loads
// it, or falls back to EVALSHA, as usual.
func (s *Store) preload(sc *compiled) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bound) < maxProbed {
		s.bound = append(s.bound, sc)
	}
	if s.closed || s.noFunctions.Load() || !s.preloaded.CompareAndSwap(false, true) {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(s.ctx, s.ioTimeout)
		defer cancel()
		if s.loadLibrary(ctx) != nil {
			s.preloaded.Store(false)
		}
	}()
}
