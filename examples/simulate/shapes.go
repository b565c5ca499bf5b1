package main

import (
	"math"
	"time"
)

// client is one source of requests in a shape, on a key of its own.
type client struct {
	name string
	// at lists the instants a client on a schedule sends at, whatever it
	// is told.
	at []time.Duration
	// obeys marks a client that sends one request at a time from 0: the
	// next one as soon as the previous returns (after its Delay), or,
	// after a denial, exactly its RetryAfter later.
	obeys bool
}

// shape is a traffic shape played through every algorithm.
type shape struct {
	file  string // base name of its plot: file + ".svg"
	title string
	about string // what the clients do, one sentence
	// The algorithms are configured for limit per window (see algorithms).
	limit  int64
	window time.Duration
	length time.Duration // the span simulated, from 0
	bin    time.Duration // the plot's resolution
	// tick is the spacing of the time axis' labels.
	tick    time.Duration
	clients []client
	login   bool // the algorithms include Backoff
	// fairness compares the clients' shares of what they are due.
	fairness bool
	// cumulative plots the requests admitted so far, a line per client,
	// instead of those admitted in each bin.
	cumulative bool
}

// shapes returns the traffic shapes. Every one is deterministic: the
// Poisson arrivals come from a seeded generator of this file.
func shapes() []shape {
	const s = time.Second
	var boundary []time.Duration
	for _, k := range []time.Duration{0, 2 * s, 4 * s} {
		boundary = append(boundary, burst(k+950*time.Millisecond, 10, time.Millisecond)...)
		boundary = append(boundary, burst(k+s, 10, time.Millisecond)...)
	}
	return []shape{
		{
			file: "steady", title: "Steady traffic over the limit",
			about: "One client sends 15 requests a second, evenly spaced, for 10 s: 1.5 times the limit.",
			limit: 10, window: s, length: 10 * s, bin: 200 * time.Millisecond, tick: s,
			clients: []client{{name: "client", at: evenly(150, 10*s)}},
		},
		{
			file: "boundary", title: "A burst at a window boundary",
			about: "One client sends 10 requests at 0.95 s and 10 more at 1.00 s (1 ms apart), " +
				"and again 2 s and 4 s later: just before and just after the clock's second boundaries.",
			limit: 10, window: s, length: 6 * s, bin: 200 * time.Millisecond, tick: s,
			clients: []client{{name: "client", at: boundary}},
		},
		{
			file: "abusive", title: "An abusive client at twice the rate",
			about: "One client sends 20 requests a second, evenly spaced, for 10 s: a = 2 times the limit " +
				"(the abusive client of the quota/linear hybrid article).",
			limit: 10, window: s, length: 10 * s, bin: 200 * time.Millisecond, tick: s,
			clients: []client{{name: "client", at: evenly(200, 10*s)}},
		},
		{
			file: "poisson", title: "Poisson arrivals from three clients",
			about: "Three clients, each on its own key, send at random (Poisson) instants for 20 s: " +
				"heavy at 20/s, even at 10/s (the limit), light at 5/s.",
			limit: 10, window: s, length: 20 * s, bin: s, tick: 2 * s,
			clients: []client{
				{name: "heavy", at: poisson(1, 20, 20*s)},
				{name: "even", at: poisson(2, 10, 20*s)},
				{name: "light", at: poisson(3, 5, 20*s)},
			},
			fairness: true,
		},
		{
			file: "retry", title: "A client that retries exactly at Retry-After",
			about: "One client sends as fast as it is let: its next request as soon as the last returns, " +
				"and after a denial exactly RetryAfter later, for 10 s.",
			limit: 10, window: s, length: 10 * s, bin: 200 * time.Millisecond, tick: s,
			clients: []client{{name: "client", obeys: true}},
		},
		{
			file: "login", title: "Password guessing",
			about: "Two attackers guess the passwords of two accounts for 24 h: hammer tries every 10 s " +
				"whatever it is told, patient retries exactly at Retry-After. Every attempt is a failure.",
			limit: 5, window: time.Hour, length: 24 * time.Hour, bin: 10 * time.Minute, tick: 2 * time.Hour,
			clients: []client{
				{name: "hammer", at: evenly(24*360, 24*time.Hour)},
				{name: "patient", obeys: true},
			},
			login: true, cumulative: true,
		},
	}
}

// evenly returns n instants evenly spaced over [0, length).
func evenly(n int, length time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i) * length / time.Duration(n)
	}
	return out
}

// burst returns n instants from at, gap apart.
func burst(at time.Duration, n int, gap time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = at + time.Duration(i)*gap
	}
	return out
}

// poissonGrid is the resolution of the Poisson arrivals: each 100 µs slot
// holds an arrival with probability rate·100 µs (a Bernoulli process, as
// close to Poisson as 100 µs is to 0), decided in integers so that every
// platform draws the same instants.
const poissonGrid = 100 * time.Microsecond

// poisson returns the arrivals of a Poisson process of perSecond over
// [0, length), from seed.
func poisson(seed uint64, perSecond uint64, length time.Duration) []time.Duration {
	rng := splitmix(seed)
	threshold := math.MaxUint64 / uint64(time.Second/poissonGrid) * perSecond
	var out []time.Duration
	for t := time.Duration(0); t < length; t += poissonGrid {
		if rng.next() < threshold {
			out = append(out, t)
		}
	}
	return out
}

// splitmix is the SplitMix64 generator: a few lines whose output no library
// release can change.
type splitmix uint64

func (s *splitmix) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
