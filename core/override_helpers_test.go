package core_test

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// hourlyPolicy is the policy name of one limit, "hour": quota a fixed
// window of an hour, as the Overrides tests give tenants and defaults.
func hourlyPolicy(name string, quota int64) *core.Policy {
	return core.MustPolicy(name, core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: quota, Window: time.Hour}})
}

// strictUnlessFailing is a provider giving victim the policy "strict" of
// quota 1 (and every other key a policy of its own name, quota 10), both
// made by pol, and failing for victim while failing is set.
func strictUnlessFailing(victim string, pol func(name string, quota int64) *core.Policy, failing *atomic.Bool) core.OverrideFunc {
	return func(_ context.Context, key string) (*core.Policy, bool, error) {
		if key == victim {
			if failing.Load() {
				return nil, false, errors.New("provider down")
			}
			return pol("strict", 1), true, nil
		}
		return pol(key, 10), true, nil
	}
}
