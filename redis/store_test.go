package redis_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/redis"
	"github.com/toolexec/toolexec/redis/redistest"
	"github.com/toolexec/toolexec/storetest"
)

func TestStoreKeepsTheStoreContract(t *testing.T) {
	srv := redistest.New(t)
	var n atomic.Int32
	storetest.Test(t, func(t *testing.T) toolexec.Store {
		// One server, a prefix per check: stores sharing a Redis keep
		// apart by prefix.
		s, err := redis.Open(context.Background(), srv.URL(), redis.Options{Prefix: fmt.Sprintf("t%d:", n.Add(1))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	})
}
