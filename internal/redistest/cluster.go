package redistest

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a Redis Cluster of masters without replicas, started by a
// test (see [StartCluster]).
type Cluster struct {
	// Nodes are the masters' servers.
	Nodes []*Server
}

// StartCluster starts masters redis-servers (see [Start]) with cluster
// mode on, joins them with redis-cli --cluster create (the slots spread
// evenly, no replicas), and returns once every node reports cluster_state
// ok (failing t after 30 s).
func StartCluster(t testing.TB, masters int) *Cluster {
	t.Helper()
	cl := &Cluster{}
	var addrs []string
	for range masters {
		s := Start(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000")
		cl.Nodes = append(cl.Nodes, s)
		addrs = append(addrs, s.Addr())
	}
	out, err := exec.Command(CLI(t), append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "0", "--cluster-yes")...).CombinedOutput()
	if err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v: %s", err, out)
	}
	ctx := context.Background()
	var clients []*redis.Client
	for _, s := range cl.Nodes {
		clients = append(clients, s.Client(t))
	}
	// A bound only a broken cluster reaches: every node must agree before
	// keys are routed.
	for deadline := time.Now().Add(30 * time.Second); ; {
		ok := true
		for _, c := range clients {
			info, err := c.ClusterInfo(ctx).Result()
			ok = ok && err == nil && strings.Contains(info, "cluster_state:ok")
		}
		if ok {
			return cl
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: the cluster of %v did not form within 30 s", addrs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Addrs returns the nodes' host:port.
func (c *Cluster) Addrs() []string {
	var out []string
	for _, s := range c.Nodes {
		out = append(out, s.Addr())
	}
	return out
}

// Client returns a cluster client of the nodes, closed at t's cleanup,
// bounded as [Server.Client]'s, without retries (a command the server ran
// whose reply was late would run again).
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs(), ContextTimeoutEnabled: true, MaxRetries: -1,
		DialTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second})
	t.Cleanup(func() { cc.Close() })
	cc.ReloadState(context.Background())
	return cc
}
