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
// test (see [StartCluster]).
type Cluster struct {
	// Nodes are the masters' servers.
	Nodes []*Server
}

// clusterSlots is how many hash slots a Redis Cluster has.
const clusterSlots = 16384

// StartCluster starts masters redis-servers (see [Start]) with cluster
// mode on and forms the cluster itself: each node is given an even range
// of slots and its own config epoch, then the first node meets the others,
// again every second while some node does not know them all (a MEET lost
// on a loaded machine is sent anew: redis-cli --cluster create waits
// forever for a node that missed the handshake). It returns once every
// node knows every other and reports cluster_state ok, and fails t, never
// hangs, if that has not happened within a minute.
func StartCluster(t testing.TB, masters int) *Cluster {
	t.Helper()
	cl := &Cluster{}
	for range masters {
		cl.Nodes = append(cl.Nodes, Start(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000"))
	}
	ctx := context.Background()
	var clients []*redis.Client
	for i, s := range cl.Nodes {
		c := s.Client(t)
		clients = append(clients, c)
		lo, hi := i*clusterSlots/masters, (i+1)*clusterSlots/masters-1
		if err := c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", lo, hi).Err(); err != nil {
			t.Fatalf("redistest: CLUSTER ADDSLOTSRANGE %d %d on %s: %v", lo, hi, s.Addr(), err)
		}
		if err := c.Do(ctx, "CLUSTER", "SET-CONFIG-EPOCH", i+1).Err(); err != nil {
			t.Fatalf("redistest: CLUSTER SET-CONFIG-EPOCH on %s: %v", s.Addr(), err)
		}
	}
	meet := func() {
		for _, s := range cl.Nodes[1:] {
			host, port, err := net.SplitHostPort(s.Addr())
			if err != nil {
				t.Fatalf("redistest: %s: %v", s.Addr(), err)
			}
			if err := clients[0].ClusterMeet(ctx, host, port).Err(); err != nil {
				t.Fatalf("redistest: CLUSTER MEET %s: %v", s.Addr(), err)
			}
		}
	}
	meet()
	want := "cluster_known_nodes:" + strconv.Itoa(masters) + "\r\n"
	lastMeet := time.Now()
	for deadline := time.Now().Add(time.Minute); ; {
		ok := true
		for _, c := range clients {
			info, err := c.ClusterInfo(ctx).Result()
			ok = ok && err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, want)
		}
		if ok {
			return cl
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: the cluster of %v did not form within a minute", cl.Addrs())
		}
		if time.Since(lastMeet) > time.Second {
			meet()
			lastMeet = time.Now()
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
