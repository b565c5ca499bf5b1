package warmcurve_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/internal/warmcurve"
)

// Guava's SmoothWarmingUp example: 1 permit per second warming up over 4
// s from 3× slower stores at most 4 permits, the half-way threshold at 2.
func TestGuavaExample(t *testing.T) {
	want := warmcurve.Curve{Stable: 1e9, Threshold: 2, MaxPermits: 4, Slope: 1e9, CoolDown: 1e9}
	for _, cf := range []float64{0, 3} {
		if got := warmcurve.Of(1, time.Second, 4*time.Second, cf); got != want {
			t.Errorf("cold factor %v: %+v, want %+v", cf, got, want)
		}
	}
}
