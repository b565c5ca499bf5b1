package main

import (
	"context"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// start is the simulated clock's first instant, 2026-01-01 00:00:00 UTC:
// a boundary of every epoch-aligned window and period of the shapes.
var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// maxRequests bounds the requests of one play, whatever a client does.
const maxRequests = 100_000

// request is one decision of a play.
type request struct {
	client  int
	at      time.Duration // since start
	allowed bool
	delay   time.Duration // shaping: how long an admitted request waits
	retry   time.Duration // RetryAfter of a denial
	// retried marks a request an obeying client sent exactly RetryAfter
	// after a denial.
	retried bool
}

// proceeds returns when an admitted request reaches the service.
func (r request) proceeds() time.Duration { return r.at + r.delay }

// play sends the requests of s through a on a simulated clock, each client
// on its own key, in the order of their instants (ties in client order).
func play(s shape, a algo) ([]request, error) {
	p, err := core.Single("simulate", a.alg)
	if err != nil {
		return nil, err
	}
	clk := coretest.NewClock(start)
	lim, err := core.NewLimiter(p, core.WithClock(clk))
	if err != nil {
		return nil, err
	}
	type cursor struct {
		next    time.Duration // -1: done
		i       int           // into at, for a client on a schedule
		retried bool
	}
	cur := make([]cursor, len(s.clients))
	for c, cl := range s.clients {
		cur[c].next = -1
		if cl.obeys {
			cur[c].next = 0
		} else if len(cl.at) > 0 {
			cur[c].next = cl.at[0]
		}
	}
	var out []request
	var res core.Result
	ctx := context.Background()
	for {
		c := -1
		for i := range cur {
			if cur[i].next >= 0 && (c < 0 || cur[i].next < cur[c].next) {
				c = i
			}
		}
		if c < 0 {
			return out, nil
		}
		if len(out) == maxRequests {
			return nil, fmt.Errorf("%s, %s: more than %d requests", s.file, a.name, maxRequests)
		}
		at, cl := cur[c].next, s.clients[c]
		clk.Set(start.Add(at))
		if err := lim.Take(ctx, fmt.Sprint("client-", c), 1, &res); err != nil {
			return nil, err
		}
		r := request{client: c, at: at, allowed: res.Allowed, delay: res.Delay, retry: res.RetryAfter, retried: cur[c].retried}
		out = append(out, r)
		if !cl.obeys {
			cur[c].i++
			cur[c].next = -1
			if cur[c].i < len(cl.at) {
				cur[c].next = cl.at[cur[c].i]
			}
			continue
		}
		switch {
		case r.allowed:
			cur[c].next, cur[c].retried = at+r.delay, false
		case r.retry == core.Never:
			cur[c].next = -1
			continue
		case r.retry <= 0:
			return nil, fmt.Errorf("%s, %s: a denial at %v with RetryAfter %v", s.file, a.name, at, r.retry)
		default:
			cur[c].next, cur[c].retried = at+r.retry, true
		}
		if cur[c].next >= s.length {
			cur[c].next = -1
		}
	}
}
