package core_test

import (
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// hourlyPolicy is the policy name of one limit, "hour": quota a fixed
// window of an hour, as the Overrides tests give tenants and defaults.
func hourlyPolicy(name string, quota int64) *core.Policy {
	return core.MustPolicy(name, core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: quota, Window: time.Hour}})
}
