package redistest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/toolexec/toolexec/internal/testserver"
)

// slots is the number of hash slots of a Redis Cluster.
const slots = 16384

// ClusterConfig is the shape of a cluster StartCluster starts.
type ClusterConfig struct {
	// Masters is how many masters share the hash slots, evenly; 0 means 3.
	Masters int
	// Replicas is how many replicas each master has; 0 means none.
	Replicas int
	// NodeTimeout is how long a node may fail to answer before the
	// others count it as failed and, if it is a master with replicas,
	// one of them takes its place (Redis's cluster-node-timeout); 0 means
	// Redis's default, 15 seconds. A short one makes a test of a
	// failover quick.
	NodeTimeout time.Duration
}

// Cluster is a running Redis Cluster of throw-away servers (Redis 7 or
// later).
type Cluster struct {
	// Nodes are the cluster's servers: first the masters, in the order of
	// the slots they were given, then the replicas of the first master,
	// of the second, and so on.
	Nodes []*Server
}

// Addrs are the addresses of the cluster's nodes.
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		addrs[i] = n.Addr
	}
	return addrs
}

// URL is the cluster's redis+cluster:// URL, as redis.Open reads it: the
// first node's address, the others' as addr parameters.
func (c *Cluster) URL() string {
	q := url.Values{}
	for _, a := range c.Addrs()[1:] {
		q.Add("addr", a)
	}
	u := url.URL{Scheme: "redis+cluster", Host: c.Nodes[0].Addr, RawQuery: q.Encode()}
	return u.String()
}

// NewCluster starts a cluster shaped by config for t and stops it when t
// ends. Like New, it skips the test without redis-server, unless the
// environment sets CI.
func NewCluster(t testing.TB, config ClusterConfig) *Cluster {
	t.Helper()
	c, err := StartCluster(config)
	testserver.Require(t, err)
	t.Cleanup(c.Close)
	return c
}

// StartCluster starts servers in cluster mode, each on free ports of
// 127.0.0.1 (its cluster bus on a port of its own), forms them into the
// cluster config describes, and returns once every node reports the
// cluster ok, knowing every other node, and every replica is in sync with
// its master; Close stops it. A new cluster takes Redis about two seconds
// (a master waits that long before it serves, in case the cluster would
// rather it did not).
func StartCluster(config ClusterConfig) (*Cluster, error) {
	if config.Masters == 0 {
		config.Masters = 3
	}
	if config.Masters < 0 || config.Replicas < 0 {
		return nil, fmt.Errorf("redistest: a cluster of %d masters with %d replicas each", config.Masters, config.Replicas)
	}
	// A replica's first sync starts at once, not after the default five
	// seconds' wait for others to share it.
	args := []string{"--repl-diskless-sync-delay", "0"}
	if config.NodeTimeout > 0 {
		args = append(args, "--cluster-node-timeout", strconv.FormatInt(config.NodeTimeout.Milliseconds(), 10))
	}
	c := &Cluster{}
	for range config.Masters * (1 + config.Replicas) {
		s, err := start(append([]string{}, args...))
		if err != nil {
			c.Close()
			return nil, err
		}
		c.Nodes = append(c.Nodes, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.form(ctx, config); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// form does what redis-cli --cluster create does, without its pauses:
// each master takes its share of the slots, every node an epoch of its
// own, every node meets every other, and each replica follows its
// master.
func (c *Cluster) form(ctx context.Context, config ClusterConfig) error {
	var clients []*goredis.Client
	for _, n := range c.Nodes {
		cl := goredis.NewClient(&goredis.Options{Addr: n.Addr, MaxRetries: -1})
		defer func() { _ = cl.Close() }() // a setup connection
		clients = append(clients, cl)
	}
	for i, cl := range clients {
		if i < config.Masters {
			lo, hi := i*slots/config.Masters, (i+1)*slots/config.Masters-1
			if err := cl.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", lo, hi).Err(); err != nil {
				return fmt.Errorf("redistest: assigning slots %d-%d to %s: %w", lo, hi, c.Nodes[i].Addr, err)
			}
		}
		if err := cl.Do(ctx, "CLUSTER", "SET-CONFIG-EPOCH", i+1).Err(); err != nil {
			return fmt.Errorf("redistest: setting the epoch of %s: %w", c.Nodes[i].Addr, err)
		}
	}
	// Every node meets every other at once: gossip would spread the news
	// too, but only about once a second.
	for i, cl := range clients {
		for _, n := range c.Nodes[i+1:] {
			host, port, _ := net.SplitHostPort(n.Addr)
			if err := cl.Do(ctx, "CLUSTER", "MEET", host, port, n.bus).Err(); err != nil {
				return fmt.Errorf("redistest: introducing %s to %s: %w", n.Addr, c.Nodes[i].Addr, err)
			}
		}
	}
	known := fmt.Sprintf("cluster_known_nodes:%d\r\n", len(c.Nodes))
	if err := c.await(ctx, clients, "know every node", func(cl *goredis.Client) (bool, string) {
		info, _ := cl.ClusterInfo(ctx).Result()
		return strings.Contains(info, known), info
	}); err != nil {
		return err
	}
	for r := config.Masters; r < len(clients); r++ {
		master := clients[(r-config.Masters)/config.Replicas]
		id, err := master.Do(ctx, "CLUSTER", "MYID").Text()
		if err != nil {
			return fmt.Errorf("redistest: the id of %s: %w", master.Options().Addr, err)
		}
		// A node counted as known may still be in its handshake, under
		// an id of its own making: until it is through, the replica does
		// not know the master's id.
		if err := c.await(ctx, clients[r:r+1], "know the master", func(cl *goredis.Client) (bool, string) {
			err := cl.Do(ctx, "CLUSTER", "REPLICATE", id).Err()
			return err == nil, fmt.Sprint(err)
		}); err != nil {
			return err
		}
	}
	return c.await(ctx, clients, "serve every slot, replicas in sync", func(cl *goredis.Client) (bool, string) {
		info, _ := cl.ClusterInfo(ctx).Result()
		repl, _ := cl.Info(ctx, "replication").Result()
		ok := strings.Contains(info, "cluster_state:ok") && strings.Contains(info, "cluster_slots_ok:16384") &&
			(strings.Contains(repl, "role:master") || strings.Contains(repl, "master_link_status:up"))
		return ok, info + repl
	})
}

// await polls each of clients until ok says its node is ready, or ctx
// ends.
func (c *Cluster) await(ctx context.Context, clients []*goredis.Client, what string, ok func(*goredis.Client) (bool, string)) error {
	for _, cl := range clients {
		for {
			ready, state := ok(cl)
			if ready {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("redistest: the cluster's nodes did not %s in time; %s says:\n%s", what, cl.Options().Addr, state)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	return nil
}

// MasterFor is the node that now serves key, the master of its hash slot
// (which a failover changes).
func (c *Cluster) MasterFor(t testing.TB, key string) *Server {
	t.Helper()
	client := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: c.Addrs()})
	defer func() { _ = client.Close() }() // a query's connection
	master, err := client.MasterForKey(context.Background(), key)
	if err != nil {
		t.Fatalf("redistest: the master of %q: %v", key, err)
	}
	for _, n := range c.Nodes {
		if n.Addr == master.Options().Addr {
			return n
		}
	}
	t.Fatalf("redistest: the master of %q is at %s, no node of the cluster", key, master.Options().Addr)
	return nil
}

// Close stops every node and removes their directories.
func (c *Cluster) Close() {
	for _, n := range c.Nodes {
		n.Close()
	}
}
