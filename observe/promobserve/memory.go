package promobserve

import (
	"sync"

	"github.com/floodgate-go/floodgate/core"
	"github.com/prometheus/client_golang/prometheus"
)

// memoryCollector reports the watched memory stores' fill level at each
// scrape.
type memoryCollector struct {
	keys, max *prometheus.Desc

	mu     sync.Mutex
	stores []*core.MemoryStore
}

func newMemoryCollector(ns string, cl prometheus.Labels) *memoryCollector {
	return &memoryCollector{
		keys: prometheus.NewDesc(prometheus.BuildFQName(ns, "memory", "keys"),
			"Keys the in-memory store holds for a policy, recovered or not yet swept.", []string{"policy"}, cl),
		max: prometheus.NewDesc(prometheus.BuildFQName(ns, "memory", "max_keys"),
			"The most keys the in-memory store holds for a policy (its MaxKeys bound).", []string{"policy"}, cl),
	}
}

func (c *memoryCollector) watch(m *core.MemoryStore) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.stores {
		if s == m {
			return
		}
	}
	c.stores = append(c.stores, m)
}

// Describe sends the two descriptors.
func (c *memoryCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.keys
	ch <- c.max
}

// Collect sends each policy's keys and bound, summed over the tables of
// that name.
func (c *memoryCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	stores := append([]*core.MemoryStore(nil), c.stores...)
	c.mu.Unlock()
	var usage []core.MemoryUsage
	for _, s := range stores {
		usage = s.AppendUsage(usage)
	}
	type total struct{ keys, max int }
	sums := map[string]*total{}
	var order []string
	for _, u := range usage {
		t := sums[u.Policy]
		if t == nil {
			t = &total{}
			sums[u.Policy] = t
			order = append(order, u.Policy)
		}
		t.keys += u.Keys
		t.max += u.MaxKeys
	}
	for _, p := range order {
		ch <- prometheus.MustNewConstMetric(c.keys, prometheus.GaugeValue, float64(sums[p].keys), p)
		ch <- prometheus.MustNewConstMetric(c.max, prometheus.GaugeValue, float64(sums[p].max), p)
	}
}
