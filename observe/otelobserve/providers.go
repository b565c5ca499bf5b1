package otelobserve

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"weak"

	"github.com/floodgate-go/floodgate/core"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
)

// providers holds the Observer recording with each MeterProvider, weakly
// on both sides: an Observer lives as long as its provider (which holds
// its callback), and neither is kept alive here. Two Observers of one
// provider would each observe the store and memory gauges with the same
// attributes, and the SDK keeps one observation per set, the last: the
// Observer a store reported its outage to said up 0, another that only
// saw decisions said 1, and 1 was exported; two stores watched apart were
// not summed; and each would bound its policy names and override sets
// alone, together twice the bound. So New gives the one there is.
var providers = struct {
	mu sync.Mutex
	m  map[weak.Pointer[byte]]weak.Pointer[Observer]
	// delegating is the Observer made on otel's global provider before
	// otel.SetMeterProvider: its instruments and callback move to the
	// provider set then, which therefore has it already.
	delegating weak.Pointer[Observer]
}{m: map[weak.Pointer[byte]]weak.Pointer[Observer]{}}

// globalDelegate reports whether mp is otel's global provider before
// otel.SetMeterProvider, which delegates to the provider set first.
func globalDelegate(mp metric.MeterProvider) bool {
	t := reflect.TypeOf(mp)
	return t.Kind() == reflect.Pointer && t.Elem().PkgPath() == "go.opentelemetry.io/otel/internal/global"
}

// providerKey returns the key of mp in providers: a weak pointer to what
// mp points to; false for a provider that is not a pointer to something
// of a size (a noop.MeterProvider, a struct, records nothing).
func providerKey(mp metric.MeterProvider) (weak.Pointer[byte], bool) {
	v := reflect.ValueOf(mp)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Type().Elem().Size() == 0 {
		return weak.Pointer[byte]{}, false
	}
	return weak.Make((*byte)(v.UnsafePointer())), true
}

// recording returns the Observer recording with mp, made by newOne when
// there is none; the one there is when its options are opts, else an
// error wrapping core.ErrInvalidConfig.
func recording(mp metric.MeterProvider, opts Options, newOne func() (*Observer, error)) (*Observer, error) {
	k, ok := providerKey(mp)
	if !ok {
		return newOne()
	}
	providers.mu.Lock()
	defer providers.mu.Unlock()
	for pk, o := range providers.m {
		if pk.Value() == nil || o.Value() == nil {
			delete(providers.m, pk) // a provider gone, and its Observer
		}
	}
	o := providers.m[k].Value()
	if d := providers.delegating.Value(); o == nil && d != nil && !globalDelegate(mp) && mp == otel.GetMeterProvider() {
		// The global provider, set since an Observer was made on it
		// (one component's New before otel.SetMeterProvider, another's
		// after): that Observer records with mp now.
		o = d
		if o.opts.same(opts) {
			providers.m[k] = weak.Make(o)
		}
	}
	if o != nil {
		if !o.opts.same(opts) {
			return nil, fmt.Errorf("otelobserve: an Observer records with this MeterProvider already, of other Options (%+v, not %+v): "+
				"give the limiters and stores that one, or use another provider (two would observe the same gauges, and the SDK export one's): %w",
				o.opts.shown(), opts.shown(), core.ErrInvalidConfig)
		}
		return o, nil
	}
	o, err := newOne()
	if err != nil {
		return nil, err
	}
	providers.m[k] = weak.Make(o)
	if globalDelegate(mp) {
		providers.delegating = weak.Make(o)
	}
	return o, nil
}

// same reports whether o and p, their defaults set, are the same options.
func (o Options) same(p Options) bool {
	return o.NoSpans == p.NoSpans && o.MaxPolicies == p.MaxPolicies && o.MaxOverrideSets == p.MaxOverrideSets &&
		slices.Equal(o.Buckets, p.Buckets)
}

// shown is o without its provider, to be printed.
func (o Options) shown() Options {
	o.MeterProvider = nil
	return o
}
