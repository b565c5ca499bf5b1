package main

import (
	"slices"
	"time"
)

// figures sums up one play of a shape through an algorithm.
type figures struct {
	sent, admitted, denied int
	clients                []clientFigures
	// firstDenial is what the first client got through before its first
	// denial (all it got when never denied).
	firstDenial int
	// worstWindow is the most one client got through in any interval of
	// the shape's window, [t, t+window), counting an admitted request when
	// it proceeds (after its shaping delay); worstTenth the same in any
	// tenth of the window.
	worstWindow, worstTenth int
	// missedRetries counts the retries sent exactly at RetryAfter that
	// were denied again.
	retries, missedRetries int
	maxDelay               time.Duration
}

// clientFigures is one client's part.
type clientFigures struct {
	sent, admitted int
	// due is what a limit of limit per window owes the client over the
	// shape's length: min(sent, limit·length/window).
	due int
}

// share is the part of its due a client got through, in per cent
// (above 100 when a burst let it through more).
func (c clientFigures) share() int {
	if c.due == 0 {
		return 100
	}
	return (200*c.admitted + c.due) / (2 * c.due) // rounded
}

// fairness is the lowest share divided by the highest, in per cent: 100
// when every client got the same part of what it is due.
func (f *figures) fairness() int {
	lo, hi := -1, 0
	for _, c := range f.clients {
		s := c.share()
		if lo < 0 || s < lo {
			lo = s
		}
		hi = max(hi, s)
	}
	if hi == 0 {
		return 100
	}
	return (200*lo + hi) / (2 * hi)
}

// measure computes the figures of reqs, a play of s.
func measure(s shape, reqs []request) figures {
	f := figures{clients: make([]clientFigures, len(s.clients)), firstDenial: -1}
	proceeds := make([][]time.Duration, len(s.clients))
	for _, r := range reqs {
		f.sent++
		c := &f.clients[r.client]
		c.sent++
		if r.retried {
			f.retries++
		}
		if !r.allowed {
			f.denied++
			if r.client == 0 && f.firstDenial < 0 {
				f.firstDenial = f.clients[0].admitted
			}
			if r.retried {
				f.missedRetries++
			}
			continue
		}
		f.admitted++
		c.admitted++
		f.maxDelay = max(f.maxDelay, r.delay)
		proceeds[r.client] = append(proceeds[r.client], r.proceeds())
	}
	if f.firstDenial < 0 {
		f.firstDenial = f.clients[0].admitted
	}
	owed := int(s.limit * int64(s.length/s.window))
	for i := range f.clients {
		c := &f.clients[i]
		c.due = min(c.sent, owed)
		slices.Sort(proceeds[i])
		f.worstWindow = max(f.worstWindow, mostWithin(proceeds[i], s.window))
		f.worstTenth = max(f.worstTenth, mostWithin(proceeds[i], s.window/10))
	}
	return f
}

// mostWithin returns the most instants of sorted ts in any [t, t+d).
func mostWithin(ts []time.Duration, d time.Duration) int {
	most := 0
	for i, j := 0, 0; j < len(ts); j++ {
		for ts[j]-ts[i] >= d {
			i++
		}
		most = max(most, j-i+1)
	}
	return most
}
