package main

import (
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware/login"
)

// algo is one row of every plot: an algorithm and its configuration.
type algo struct {
	name string // e.g. "GCRA"
	conf string // e.g. "10/s, burst 10"
	alg  core.Algorithm
}

// algorithms returns every algorithm configured for limit units per
// window, so that the rows of a plot compare: each admits limit per window
// in the long run. With login set, Backoff is added with the login
// middleware's per-account default (5 free failures per hour).
func algorithms(limit int64, window time.Duration, withLogin bool) []algo {
	rate := core.Per(limit, window)
	per := rateText(limit, window)
	period := window / 4
	pcap := (limit + 1) / 2
	as := []algo{
		{"GCRA", per + ", burst " + fmt.Sprint(limit), core.GCRA{Rate: rate, Burst: limit}},
		{"TokenBucket", per + ", burst " + fmt.Sprint(limit), core.TokenBucket{Rate: rate, Burst: limit}},
		{"LeakyBucket", "drains " + per + ", queue " + fmt.Sprint(limit), core.LeakyBucket{Rate: rate, Capacity: limit}},
		{"FixedWindow", per + ", aligned", core.FixedWindow{Quota: limit, Window: window}},
		{"FixedWindow", per + ", anchored", core.FixedWindow{Quota: limit, Window: window, Anchored: true}},
		{"SlidingLog", per, core.SlidingLog{Quota: limit, Window: window}},
		{"SlidingLog", per + ", count rejected", core.SlidingLog{Quota: limit, Window: window, CountRejected: true}},
		{"SlidingWindow", per, core.SlidingWindow{Quota: limit, Window: window}},
		{"Hybrid", per, core.Hybrid{Quota: limit, Window: window}},
		{"RollingWindow", fmt.Sprintf("%s, %s periods ≤ %d", per, durText(period), pcap),
			core.RollingWindow{Quota: limit, Window: window, Period: period, PeriodCap: pcap}},
		{"WarmUp", per + ", warm-up " + durText(2*window), core.WarmUp{Rate: rate, WarmUp: 2 * window}},
	}
	if withLogin {
		// The login middleware's default, and the same counting free
		// failures per day.
		def := login.DefaultAccount.WithDefaults()
		daily := def
		daily.Window = 24 * time.Hour
		for _, b := range []core.Backoff{def, daily} {
			as = append(as, algo{"Backoff", fmt.Sprintf("%d free per %s, lock %s doubling to %s",
				b.Free, durText(b.Window), durText(b.Base), durText(b.Max)), b})
		}
	}
	return as
}

// rateText formats limit per window as "10/s" or "5/h".
func rateText(limit int64, window time.Duration) string {
	switch window {
	case time.Second:
		return fmt.Sprintf("%d/s", limit)
	case time.Minute:
		return fmt.Sprintf("%d/min", limit)
	case time.Hour:
		return fmt.Sprintf("%d/h", limit)
	}
	return fmt.Sprintf("%d per %s", limit, durText(window))
}

// durText formats d shortly: "250 ms", "1 s", "15 min", "2 h".
func durText(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	case d >= time.Second && d%time.Second == 0:
		return fmt.Sprintf("%d s", d/time.Second)
	case d%time.Millisecond == 0:
		return fmt.Sprintf("%d ms", d/time.Millisecond)
	}
	return d.String()
}
