package coretest

import (
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// Algorithms returns one small, valid configuration of every algorithm, named:
// what the differential checks replay traces against.
func Algorithms() []core.Limit {
	return []core.Limit{
		{Name: "gcra", Algorithm: core.GCRA{Rate: core.PerSecond(2), Burst: 4}},
	}
}

var _ = time.Second
