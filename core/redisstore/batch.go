package redisstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// call is one EVALSHA waiting for its pipeline.
type call struct {
	sc    *compiled
	keys  []string
	args  []any
	reply []any
	err   error
	done  chan struct{}
}

var callPool = sync.Pool{New: func() any { return &call{done: make(chan struct{}, 1)} }}

var timerPool = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}}

// errTimeout is a decision that did not complete within Options.Timeout.
var errTimeout = fmt.Errorf("decision timed out: %w", context.DeadlineExceeded)

// exec runs c in a pipeline and waits for it, at most Options.Timeout.
// When exec returns an error other than a reply of Redis, c may still be
// in use by a worker and must not be reused.
func (s *Store) exec(ctx context.Context, c *call) error {
	// Alone in flight, the call goes straight to Redis: a pipeline worker
	// would only add two goroutine hand-offs to the round trip. Calls that
	// overlap it are coalesced by the workers as usual.
	if s.inflight.Add(1) == 1 {
		one := [1]*call{c}
		var cmd [1]*redis.Cmd
		s.run(one[:], cmd[:0])
		s.inflight.Add(-1)
		<-c.done
		return c.err
	}
	defer s.inflight.Add(-1)
	t := timerPool.Get().(*time.Timer)
	t.Reset(s.opts.Timeout)
	defer func() {
		t.Stop()
		timerPool.Put(t)
	}()
	select {
	case s.queue <- c:
	case <-t.C:
		return errTimeout
	case <-ctx.Done():
		return ctx.Err()
	case <-s.quit:
		return fmt.Errorf("redisstore: store closed: %w", ErrUnavailable)
	}
	select {
	case <-c.done:
		return c.err
	case <-t.C:
		return errTimeout
	case <-ctx.Done():
		return ctx.Err()
	}
}

// worker runs queued calls in pipelines of up to MaxBatch.
func (s *Store) worker() {
	defer s.wg.Done()
	batch := make([]*call, 0, s.opts.MaxBatch)
	cmds := make([]*redis.Cmd, 0, s.opts.MaxBatch)
	for {
		select {
		case c := <-s.queue:
			batch = append(batch[:0], c)
		case <-s.quit:
			return
		}
	fill:
		for len(batch) < s.opts.MaxBatch {
			select {
			case c := <-s.queue:
				batch = append(batch, c)
			default:
				break fill
			}
		}
		cmds = s.run(batch, cmds[:0])
	}
}

// run sends batch as one pipeline: an FCALL per call, or an EVALSHA when
// Redis has no functions (before 7.0, or forbidden) or Options.NoFunctions
// says so. The calls whose function or script Redis does not hold
// (FUNCTION FLUSH, SCRIPT FLUSH, a restart, a new Cluster node) are sent
// again once: an FCALL after FUNCTION LOAD of their libraries, or an EVAL,
// which loads the script.
func (s *Store) run(batch []*call, cmds []*redis.Cmd) []*redis.Cmd {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.Timeout)
	defer cancel()
	fcall := !s.noFunctions.Load()
	_, _ = s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, c := range batch {
			if fcall {
				cmds = append(cmds, p.FCall(ctx, c.sc.fn, c.keys, c.args...))
			} else {
				cmds = append(cmds, p.EvalSha(ctx, c.sc.sha, c.keys, c.args...))
			}
		}
		return nil
	})
	var retry []int
	for i, cmd := range cmds {
		if isMissing(cmd.Err()) {
			retry = append(retry, i)
		}
	}
	if len(retry) > 0 {
		if fcall {
			fcall = s.loadLibraries(ctx, batch, retry)
		}
		_, _ = s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, i := range retry {
				c := batch[i]
				if fcall {
					cmds[i] = p.FCall(ctx, c.sc.fn, c.keys, c.args...)
				} else {
					cmds[i] = p.Eval(ctx, c.sc.src, c.keys, c.args...)
				}
			}
			return nil
		})
	}
	for i, c := range batch {
		c.reply, c.err = cmds[i].Slice()
		c.done <- struct{}{}
	}
	for i := range cmds {
		cmds[i] = nil
	}
	return cmds
}

// loadLibraries loads the libraries of the retried calls (on every master
// of a Cluster) and reports whether they may be called. A Redis that
// refuses FUNCTION LOAD (unknown command, no permission) is not asked
// again: the store uses EVALSHA from then on.
func (s *Store) loadLibraries(ctx context.Context, batch []*call, retry []int) bool {
	seen := map[*compiled]bool{}
	for _, i := range retry {
		sc := batch[i].sc
		if seen[sc] {
			continue
		}
		seen[sc] = true
		load := func(ctx context.Context, c redis.Cmdable) error {
			err := c.FunctionLoad(ctx, sc.lib).Err()
			if err != nil && strings.Contains(err.Error(), "already exists") {
				return nil
			}
			return err
		}
		var err error
		if cc, ok := s.client.(*redis.ClusterClient); ok {
			err = cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return load(ctx, c) })
		} else {
			err = load(ctx, s.client)
		}
		if err != nil {
			if !unreachable(err) {
				if s.noFunctions.CompareAndSwap(false, true) {
					s.log.Info("redisstore: redis refuses FUNCTION LOAD, using EVALSHA", "err", err)
				}
			}
			return false
		}
	}
	return true
}

// isMissing reports an FCALL of a function, or an EVALSHA of a script,
// that Redis does not hold; an FCALL that Redis does not know (before 7.0)
// too.
func isMissing(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT") {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "Function not found") || strings.Contains(msg, "unknown command 'FCALL'") ||
		strings.Contains(msg, "unknown command `FCALL`")
}

// unreachable reports whether err means Redis could not be reached or did
// not answer in time, as opposed to an error reply.
func unreachable(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, ErrUnavailable),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, redis.ErrClosed), errors.Is(err, redis.ErrPoolTimeout),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.As(err, &ne):
		return true
	}
	msg := err.Error()
	return strings.HasPrefix(msg, "LOADING") || strings.HasPrefix(msg, "MASTERDOWN") ||
		strings.Contains(msg, "connection refused") || strings.Contains(msg, "use of closed network connection")
}
