package benchmarks

import (
	"testing"
	"time"
)

const accuracySpan = 3 * time.Second

// BenchmarkAccuracy hammers one key for 3 s at 100/s, burst 100 and reports
// the events admitted next to the ideal (burst + rate × elapsed = 400 on the
// simulated clock). A library that accepts a clock runs on a simulated one
// (mode "sim": 10 calls every 100 µs from 0 to 3 s inclusive); the others run
// in real time, one goroutine calling in a loop for 3 s (mode "real"; the
// ideal then uses the measured span). Window counters (ulule, httprate) and
// sethvargo express 100/s burst 100 as 100 per 1 s window. Run with
// -benchtime 1x.
func BenchmarkAccuracy(b *testing.B) {
	for _, lib := range memoryLibraries {
		clk := new(simClock)
		clk.Set(0)
		a, sim := lib.new(specAccuracy, clk)
		if c, ok := a.(closer); ok {
			c.Close()
		}
		mode := "sim"
		if !sim {
			mode = "real"
		}
		b.Run(mode+"/"+lib.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var admitted int
				var span time.Duration
				if sim {
					a, _ = lib.new(specAccuracy, clk)
					clk.Set(0)
					for t := time.Duration(0); t <= accuracySpan; t += 100 * time.Microsecond {
						clk.Set(t)
						for range 10 {
							if a.Allow("acc") {
								admitted++
							}
						}
					}
					span = accuracySpan
				} else {
					a = build(b, lib, specAccuracy)
					start := time.Now()
					var last time.Time
					for {
						if a.Allow("acc") {
							admitted++
						}
						if last = time.Now(); last.Sub(start) >= accuracySpan {
							break
						}
					}
					span = last.Sub(start)
				}
				ideal := float64(specAccuracy.burst) + specAccuracy.perSecond()*span.Seconds()
				b.ReportMetric(float64(admitted), "admitted")
				b.ReportMetric(ideal, "ideal")
				b.ReportMetric(float64(admitted)/ideal, "admitted/ideal")
			}
		})
	}
}
