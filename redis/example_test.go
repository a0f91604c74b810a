package redis_test

import (
	"context"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/redis"
)

// A service's replicas share one Redis: open the store once, at start, and
// give it to the Executor; every surface mounted on it uses it.
func ExampleOpen() {
	ctx := context.Background()
	reg := toolexec.NewRegistry()

	store, err := redis.Open(ctx, os.Getenv("REDIS_URL"), redis.Options{})
	if err != nil {
		log.Fatal(err) // "redis: cannot reach Redis at redis:6379: ...": fail at start, not at the first call
	}
	defer store.Close()
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithStore(store))

	srv := &http.Server{Addr: ":8080", Handler: toolexec.NewHandler(x), ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.ListenAndServe())
}
