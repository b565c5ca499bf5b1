package redistest

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a Redis Cluster of masters without replicas, started by a
// test (see [StartCluster] and [LaunchCluster]).
type Cluster struct {
	// Nodes are the masters' servers.
	Nodes []*Server

	clients []*redis.Client
}

// clusterSlots is how many hash slots a Redis Cluster has.
const clusterSlots = 16384

// StartCluster starts a cluster of masters redis-servers and returns once
// it is formed: [LaunchCluster], then [Cluster.Wait].
func StartCluster(t testing.TB, masters int) *Cluster {
	t.Helper()
	cl := LaunchCluster(t, masters)
	cl.Wait(t)
	return cl
}

// LaunchCluster starts masters redis-servers (see [Start]) with cluster
// mode on, gives each node an even range of slots and its own config
// epoch, has the first node meet the others, and returns without waiting
// for the cluster to form: [Cluster.Wait] does. A master reports
// cluster_state ok no sooner than 2 s after it started (Redis's
// CLUSTER_WRITABLE_DELAY), however fast the handshake: a test that
// launches its cluster before calling t.Parallel lets those seconds pass
// while its package's serial tests run.
func LaunchCluster(t testing.TB, masters int) *Cluster {
	t.Helper()
	cl := &Cluster{}
	for range masters {
		cl.Nodes = append(cl.Nodes, Start(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000"))
	}
	ctx := context.Background()
	for i, s := range cl.Nodes {
		c := s.Client(t)
		cl.clients = append(cl.clients, c)
		lo, hi := i*clusterSlots/masters, (i+1)*clusterSlots/masters-1
		if err := c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", lo, hi).Err(); err != nil {
			t.Fatalf("redistest: CLUSTER ADDSLOTSRANGE %d %d on %s: %v", lo, hi, s.Addr(), err)
		}
		if err := c.Do(ctx, "CLUSTER", "SET-CONFIG-EPOCH", i+1).Err(); err != nil {
			t.Fatalf("redistest: CLUSTER SET-CONFIG-EPOCH on %s: %v", s.Addr(), err)
		}
	}
	cl.meet(t)
	return cl
}

// meet has the first node meet the others.
func (c *Cluster) meet(t testing.TB) {
	t.Helper()
	for _, s := range c.Nodes[1:] {
		host, port, err := net.SplitHostPort(s.Addr())
		if err != nil {
			t.Fatalf("redistest: %s: %v", s.Addr(), err)
		}
		if err := c.clients[0].ClusterMeet(context.Background(), host, port).Err(); err != nil {
			t.Fatalf("redistest: CLUSTER MEET %s: %v", s.Addr(), err)
		}
	}
}

// Wait returns once every node of the cluster [LaunchCluster] started
// knows every other and reports cluster_state ok. While some node does
// not know them all, the first node meets the others again every second
// (a MEET lost on a loaded machine is sent anew: redis-cli --cluster
// create waits forever for a node that missed the handshake). It fails t,
// never hangs, if the cluster has not formed within a minute.
//
// It asks every clusterPoll: a cluster forms in seconds (no node is ok
// before its CLUSTER_WRITABLE_DELAY of 2 s), and asking every 10 ms cost
// a 3-node cluster 0.17 of its 0.49 CPU-s.
func (c *Cluster) Wait(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	want := "cluster_known_nodes:" + strconv.Itoa(len(c.Nodes)) + "\r\n"
	lastMeet := time.Now()
	for deadline := time.Now().Add(time.Minute); ; {
		ok := true
		for _, cc := range c.clients {
			info, err := cc.ClusterInfo(ctx).Result()
			ok = ok && err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, want)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: the cluster of %v did not form within a minute", c.Addrs())
		}
		if time.Since(lastMeet) > time.Second {
			c.meet(t)
			lastMeet = time.Now()
		}
		time.Sleep(clusterPoll)
	}
}

// clusterPoll is how often [Cluster.Wait] asks the nodes whether the
// cluster formed: it delays a test by at most that once formed.
const clusterPoll = 50 * time.Millisecond

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
// whose reply was late would run again) and dialling once per dial.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs(), ContextTimeoutEnabled: true, MaxRetries: -1, DialerRetries: 1,
		DialTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second})
	t.Cleanup(func() { cc.Close() })
	cc.ReloadState(context.Background())
	return cc
}
