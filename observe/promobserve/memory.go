package promobserve

import (
	"github.com/floodgate-go/floodgate/internal/memusage"
	"github.com/prometheus/client_golang/prometheus"
)

// memoryCollector reports the watched memory stores' fill level at each
// scrape.
type memoryCollector struct {
	keys, max *prometheus.Desc
	stores    memusage.Stores
	label     func(policy string) string // a table's policy label (labelcap.Bounds.Table)
}

func newMemoryCollector(ns string, cl prometheus.Labels) *memoryCollector {
	return &memoryCollector{
		keys: prometheus.NewDesc(prometheus.BuildFQName(ns, "memory", "keys"),
			"Keys the in-memory store holds for a policy, recovered or not yet swept.", []string{"policy"}, cl),
		max: prometheus.NewDesc(prometheus.BuildFQName(ns, "memory", "max_keys"),
			"The most keys the in-memory store holds for a policy (its MaxKeys bound).", []string{"policy"}, cl),
	}
}

// Describe sends the two descriptors.
func (c *memoryCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.keys
	ch <- c.max
}

// Collect sends each policy's keys and bound, summed over the tables of
// that label.
func (c *memoryCollector) Collect(ch chan<- prometheus.Metric) {
	for _, u := range c.stores.ByPolicy(c.label) {
		ch <- prometheus.MustNewConstMetric(c.keys, prometheus.GaugeValue, float64(u.Keys), u.Policy)
		ch <- prometheus.MustNewConstMetric(c.max, prometheus.GaugeValue, float64(u.MaxKeys), u.Policy)
	}
}
