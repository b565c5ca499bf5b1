package localfirst_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/redistest"
)

// BenchmarkDecide compares a decision of the local-first store with the
// in-memory store's, for a FixedWindow and a GCRA, one hot key and 10,000
// keys, sequential and parallel (sub-benchmarks interleave: run with
// -count and compare medians). The
// local-first store's rounds run in the background, as in service
// (localfirst), or never (localfirst-norounds: the decisions' own cost);
// null is a store whose table does no work, the floor of core.Limiter's
// path for any store but the memory store.
// Sequential runs also report the process's CPU time per decision
// (cpu-ns/op), steadier than ns/op on a loaded machine: compare them with
// -cpu 1, where no other thread runs the loop's work.
func BenchmarkDecide(b *testing.B) {
	srv := redistest.Start(b)
	client := srv.Client(b)
	lf, err := localfirst.New(client, localfirst.Options{Nodes: 4})
	if err != nil {
		b.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); lf.Run(ctx) }()
	b.Cleanup(func() { stop(); <-done })
	// idle's rounds never run: its decisions' own cost.
	idle, err := localfirst.New(client, localfirst.Options{Nodes: 4})
	if err != nil {
		b.Fatal(err)
	}
	ms, err := core.NewMemoryStore(core.MemoryOptions{})
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]string, 10000)
	for i := range keys {
		keys[i] = fmt.Sprint("key-", i)
	}
	for _, alg := range []core.Algorithm{
		core.FixedWindow{Quota: 1 << 40, Window: time.Minute},
		// Every key in debt all along (a key the memory store finds
		// recovered is dropped and inserted again), never denied.
		core.GCRA{Rate: core.PerSecond(500), Burst: 43_000_000},
	} {
		p := core.MustPolicy(fmt.Sprintf("bench-%T", alg), core.Limit{Name: "bench", Algorithm: alg})
		for _, nk := range []int{1, len(keys)} {
			for _, par := range []bool{false, true} {
				for _, st := range []struct {
					name string
					s    core.Store
				}{{"memory", ms}, {"null", nullStore{}}, {"localfirst", lf}, {"localfirst-norounds", idle}} {
					decide(b, p, st.name, st.s, keys[:nk], par)
				}
			}
		}
	}
}

// decide runs one sub-benchmark of BenchmarkDecide: takes of p on s, over
// keys.
func decide(b *testing.B, p *core.Policy, name string, s core.Store, keys []string, par bool) {
	ctx := context.Background()
	l, err := core.NewLimiter(p, core.WithStore(s))
	if err != nil {
		b.Fatal(err)
	}
	alg := strings.ToLower(strings.TrimPrefix(fmt.Sprintf("%T", p.Limits()[0].Algorithm), "core."))
	nk := len(keys)
	b.Run(fmt.Sprintf("alg=%s/keys=%d/parallel=%v/%s", alg, nk, par, name), func(b *testing.B) {
		if !par {
			var res core.Result
			c0 := cpuTime()
			for i := 0; b.Loop(); i++ {
				if err := l.Take(ctx, keys[i%nk], 1, &res); err != nil {
					b.Fatal(err)
				}
			}
			if c1 := cpuTime(); c1 > 0 {
				b.ReportMetric(float64(c1-c0)/float64(b.N), "cpu-ns/op")
			}
			return
		}
		b.RunParallel(func(pb *testing.PB) {
			var res core.Result
			for i := 0; pb.Next(); i++ {
				if err := l.Take(ctx, keys[i%nk], 1, &res); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// nullStore decides nothing: every take is admitted without state.
type nullStore struct{}

func (nullStore) Bind(*core.Policy) (store.Table, error) { return nullTable{}, nil }

type nullTable struct{}

func (nullTable) Do(_ context.Context, req store.Request) (d store.Decision, _ error) {
	d.Taken, d.At = req.Op == store.OpTake, req.Now
	d.Outcomes[0] = store.Outcome{Allowed: true, Remaining: 1, ResetAfter: time.Second}
	return d, nil
}
