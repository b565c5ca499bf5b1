// Command quickstart drives bursts of requests through every floodgate
// algorithm on a simulated clock and prints, per algorithm, what each
// request was told: allowed or denied, what remains, and how long to wait.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// demo is one algorithm and the schedule of requests it is shown with.
type demo struct {
	title string
	alg   core.Algorithm
	at    []time.Duration // request instants, since the start
}

// burst is n requests at instant at.
func burst(at time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = at
	}
	return out
}

func join(parts ...[]time.Duration) []time.Duration {
	var out []time.Duration
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// demos limit every algorithm to about 5 requests per 10 s and send the
// same pattern: a burst of 7, a retry 3 s later, and a burst of 4 at 12 s.
func demos() []demo {
	ten := 10 * time.Second
	pattern := join(burst(0, 7), burst(3*time.Second, 1), burst(12*time.Second, 4))
	return []demo{
		{"GCRA: 5 per 10 s, burst 5", core.GCRA{Rate: core.Per(5, ten)}, pattern},
		{"TokenBucket: 5 per 10 s, burst 5 (as x/time/rate)", core.TokenBucket{Rate: core.Per(5, ten)}, pattern},
		{"LeakyBucket: drains 5 per 10 s, room for 5, the first 2 undelayed", core.LeakyBucket{Rate: core.Per(5, ten), Capacity: 5, NoDelay: 2}, pattern},
		{"FixedWindow: 5 per 10 s window (epoch-aligned)", core.FixedWindow{Quota: 5, Window: ten}, pattern},
		{"SlidingLog: 5 in any trailing 10 s", core.SlidingLog{Quota: 5, Window: ten}, pattern},
		{"SlidingWindow: ~5 per 10 s (counter approximation)", core.SlidingWindow{Quota: 5, Window: ten}, pattern},
		{"Hybrid: 5 per 10 s, bursty then linear", core.Hybrid{Quota: 5, Window: ten}, pattern},
		{"RollingWindow: 5 per rolling 10 s in 2 s periods, at most 3 per period", core.RollingWindow{Quota: 5, Window: ten, Period: 2 * time.Second, PeriodCap: 3}, pattern},
		{"WarmUp: 5 per 10 s after a 10 s warm-up", core.WarmUp{Rate: core.Per(5, ten), WarmUp: ten}, pattern},
		{"Backoff: 5 free failures per 10 s, then locks of 2 s doubling (each request a failed login)", core.Backoff{Free: 5, Window: ten, Base: 2 * time.Second, Max: ten}, pattern},
	}
}

// start is the simulated clock's first instant: 2026-01-01 00:00:00 UTC.
var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func run(w io.Writer) error {
	ctx := context.Background()
	for _, d := range demos() {
		p, err := core.Single("demo", d.alg)
		if err != nil {
			return err
		}
		clk := coretest.NewClock(start)
		lim, err := core.NewLimiter(p, core.WithClock(clk))
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\n%s\n", d.title)
		fmt.Fprintf(w, "  %6s  %-7s  %9s  %11s  %8s\n", "time", "result", "remaining", "retry-after", "delay")
		for _, at := range d.at {
			clk.Set(start.Add(at))
			res, err := lim.Allow(ctx, "client")
			if err != nil {
				return err
			}
			verdict, retry := "allowed", "-"
			if !res.Allowed {
				verdict, retry = "DENIED", fmtDuration(res.RetryAfter)
			}
			delay := "-"
			if res.Delay > 0 {
				delay = fmtDuration(res.Delay)
			}
			fmt.Fprintf(w, "  %5.1fs  %-7s  %9d  %11s  %8s\n", at.Seconds(), verdict, res.Remaining, retry, delay)
		}
	}
	return nil
}

func fmtDuration(d time.Duration) string {
	if d == core.Never {
		return "never"
	}
	return d.Round(time.Millisecond).String()
}

func main() {
	fmt.Println("floodgate quickstart: each algorithm facing the same requests on a simulated clock")
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}
