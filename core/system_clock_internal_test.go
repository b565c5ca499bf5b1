package core

import "testing"

// A limiter given SystemClock reads the system clock directly, as one
// given none does (no interface call, no time.Time on the hot path).
func TestSystemClockReadDirectly(t *testing.T) {
	t.Parallel()
	l, err := NewLimiter(MustPolicy("p", Limit{Name: "x", Algorithm: GCRA{Rate: PerSecond(10)}}), WithClock(SystemClock()))
	if err != nil {
		t.Fatal(err)
	}
	if l.clock != nil {
		t.Fatalf("clock %T kept: the default clock is read through its interface", l.clock)
	}
}
