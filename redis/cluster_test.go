package redis_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/testserver"
	"github.com/toolexec/toolexec/redis"
	"github.com/toolexec/toolexec/redis/redistest"
	"github.com/toolexec/toolexec/storetest"
)

// TestRedisCluster runs the store on a three-node Redis Cluster, which
// its subtests share: a cluster takes Redis a couple of seconds to form.
func TestRedisCluster(t *testing.T) {
	t.Parallel() // mostly waiting for Redis: the cluster forming, keys expiring
	c := redistest.NewCluster(t, redistest.ClusterConfig{Masters: 3})
	client := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: c.Addrs(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = client.Close() })
	var n atomic.Int32

	t.Run("StoreContract", func(t *testing.T) {
		storetest.Test(t, func(t *testing.T) toolexec.Store {
			// A hash tag per check: the checks' keys spread over the nodes.
			s := redis.New(client, redis.Options{Prefix: fmt.Sprintf("{t%d}:", n.Add(1))})
			t.Cleanup(func() { _ = s.Close() })
			return s
		})
	})

	t.Run("StoreContractThroughOpenWithoutAHashTag", func(t *testing.T) {
		storetest.Test(t, func(t *testing.T) toolexec.Store {
			return openCluster(t, c, fmt.Sprintf("u%d:", n.Add(1)))
		})
	})

	t.Run("APrefixWithoutAHashTagGetsOne", func(t *testing.T) {
		ctx := context.Background()
		for _, tc := range []struct{ prefix, keyPrefix string }{
			{"{tagged}:", "{tagged}:"},
			{"a{b}c:", "a{b}c:"},
			{"plain:", "{plain:}"},
			{"{}empty:", "{{}empty:}"},
			{"open{:", "{open{:}"},
			{"}closed:", "{toolexec}}closed:"},
		} {
			s := redis.New(client, redis.Options{Prefix: tc.prefix})
			require.NoError(t, s.Set(ctx, "k", []byte(tc.prefix), time.Minute), tc.prefix)
			got, err := client.Get(ctx, tc.keyPrefix+"kv:k").Result()
			require.NoError(t, err, "%q: the key starts with %q", tc.prefix, tc.keyPrefix)
			assert.Equal(t, tc.prefix, got)
			// All of a store's keys share a slot, or Admit's script,
			// which touches three, would fail.
			adm, err := s.Admit(ctx, toolexec.AdmitRequest{
				RateKey: "rate", Rate: toolexec.RateLimit{Rate: 10},
				SlotKey: "slot", SlotMax: 1, SlotTTL: time.Minute, Read: "absent",
			})
			require.NoError(t, err, tc.prefix)
			assert.NotEmpty(t, adm.Lease, "%q: a slot taken", tc.prefix)
			require.NoError(t, s.Close())
		}
	})

	t.Run("MessagesArriveInTheOrderTheyWerePublished", func(t *testing.T) {
		// Two stores, two connections: the subscriber's may be to any
		// node, and a message goes from node to node over the cluster bus.
		pub, sub := openCluster(t, c, "order:"), openCluster(t, c, "order:")
		got := make(chan string, 200)
		stop, err := sub.Subscribe(context.Background(), "ch", func(m []byte) { got <- string(m) })
		require.NoError(t, err)
		defer stop()
		var want, have []string
		for i := range cap(got) {
			want = append(want, strconv.Itoa(i))
			require.NoError(t, pub.Publish(context.Background(), "ch", []byte(want[i])))
		}
		for range want {
			select {
			case m := <-got:
				have = append(have, m)
			case <-time.After(5 * time.Second):
				t.Fatalf("%d of %d messages arrived", len(have), len(want))
			}
		}
		assert.Equal(t, want, have)
	})

	stores := func(t *testing.T, prefix string) toolexec.Store { return openCluster(t, c, prefix) }
	t.Run("ReplicasShareTheCache", func(t *testing.T) { replicasShareTheCache(t, stores) })
	t.Run("ReplicasNeverRunAOneSlotToolTwiceAtOnce", func(t *testing.T) { replicasNeverRunAOneSlotToolTwiceAtOnce(t, stores) })
	t.Run("ReplicasHoldARateTogether", func(t *testing.T) { replicasHoldARateTogether(t, stores) })

	// Last: the cluster is not the same after.
	t.Run("CallsGoOnWhileTheStoresNodeDoesNotAnswer", func(t *testing.T) {
		callsGoOnWhileRedisDoesNotAnswer(t, stores, func() *redistest.Server { return c.MasterFor(t, replicasKey(t)) })
	})
}

// replicasKey is a key under the prefix replicas gives the stores of t,
// with the hash tag New puts it in on a cluster.
func replicasKey(t *testing.T) string { return "{" + strings.ReplaceAll(t.Name(), "/", ".") + ":}x" }

func TestRedisClusterFailsOverToAReplica(t *testing.T) {
	t.Parallel() // mostly waiting for Redis: the cluster forming, then failing over
	c := redistest.NewCluster(t, redistest.ClusterConfig{Masters: 3, Replicas: 1, NodeTimeout: time.Second})
	var upstream atomic.Int32
	h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		upstream.Add(1)
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	}
	stores := func(t *testing.T, prefix string) toolexec.Store { return openCluster(t, c, prefix) }
	xs := replicas(t, stores, 2, h, []toolexec.Tool{{Name: "c", Options: toolexec.ToolOptions{Cache: true, CacheShared: true}}},
		toolexec.WithTimeout(10*time.Second), toolexec.WithLogger(discardLogger()))
	for _, x := range xs {
		_, err := run(x, "", "c", `{}`)
		require.NoError(t, err)
	}
	require.Equal(t, int32(1), upstream.Load(), "the replicas share the cache")

	master := c.MasterFor(t, replicasKey(t))
	direct := goredis.NewClient(&goredis.Options{Addr: master.Addr})
	defer direct.Close()
	require.NoError(t, direct.Do(context.Background(), "WAIT", 1, 5000).Err(), "the cached value reached the replica")
	master.Kill()

	// Calls go on meanwhile, uncached. Once the cluster has promoted the
	// replica, the stores find it (without waiting for go-redis's
	// minute-long reload of the cluster's layout), and the value it holds.
	i := 0
	require.Eventually(t, func() bool {
		i++
		before := upstream.Load()
		_, err := run(xs[i%2], "", "c", `{}`)
		return err == nil && upstream.Load() == before
	}, 20*time.Second, 50*time.Millisecond, "a cache hit after the failover")
	assert.NotEqual(t, master.Addr, c.MasterFor(t, replicasKey(t)).Addr, "a replica serves the slot now")
}

// openCluster opens a Store on c with Open, as toolexec serve --redis
// does.
func openCluster(t *testing.T, c *redistest.Cluster, prefix string) *redis.Store {
	t.Helper()
	s, err := redis.Open(context.Background(), c.URL(), redis.Options{Prefix: prefix})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestOpenReadsAClusterURL(t *testing.T) {
	var addrs []string
	for range 2 {
		addr, err := testserver.FreeAddr() // nothing listens there
		require.NoError(t, err)
		addrs = append(addrs, addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	_, err := redis.Open(ctx, "redis+cluster://user:s3cret@"+addrs[0]+"?addr="+addrs[1], redis.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot reach Redis at "+addrs[0]+", "+addrs[1], "every node the URL names")
	assert.NotContains(t, err.Error(), "s3cret", "the password stays out of the error")

	for _, tc := range []struct{ url, says string }{
		{"redis+cluster://user:s3cret@" + addrs[0] + "/2", "database 0 only"},
		{"redis+cluster://user:s3cret@" + addrs[0] + "?addr=nonsense", "not a Redis Cluster URL"},
		{"redis+cluster://user:s3cret@" + addrs[0] + "?bogus=1", "not a Redis Cluster URL"},
		{"rediss+cluster://user:s3cret@host name/", "not a Redis Cluster URL"},
		{`redis+cluster://user:s3"cret@` + addrs[0], "not a Redis Cluster URL"},
		{`redis+cluster://user:s3\cret@` + addrs[0], "not a Redis Cluster URL"},
	} {
		_, err := redis.Open(ctx, tc.url, redis.Options{})
		require.Error(t, err, tc.url)
		assert.Contains(t, err.Error(), tc.says, tc.url)
		assert.NotContains(t, err.Error(), "cret", tc.url) // nor any part of the password, in any quoting
	}
}
