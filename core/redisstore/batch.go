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

// run sends batch as one pipeline of EVALSHA; the calls whose script Redis
// does not hold (NOSCRIPT) are sent again with EVAL, which loads it.
func (s *Store) run(batch []*call, cmds []*redis.Cmd) []*redis.Cmd {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.Timeout)
	defer cancel()
	_, _ = s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, c := range batch {
			cmds = append(cmds, p.EvalSha(ctx, c.sc.sha, c.keys, c.args...))
		}
		return nil
	})
	var retry []int
	for i, cmd := range cmds {
		if isNoScript(cmd.Err()) {
			retry = append(retry, i)
		}
	}
	if len(retry) > 0 {
		_, _ = s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, i := range retry {
				c := batch[i]
				cmds[i] = p.Eval(ctx, c.sc.src, c.keys, c.args...)
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

func isNoScript(err error) bool {
	return err != nil && (errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT"))
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
