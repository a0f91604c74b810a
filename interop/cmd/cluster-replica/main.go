// Command cluster-replica is one replica of the service the cluster tests
// run three of behind HAProxy (see ../../cluster_test.go): toolexec's MCP
// surface at /mcp, REST at /rest/ and OXP at /oxp/, all on one Executor
// whose store is the Redis that -redis names, serving tools that make what
// replicas share observable:
//
//	cluster.cached    cached for everyone; each run asks UPSTREAM/hit?k=K, which counts runs
//	cluster.one       at most one call at once across the service; each run asks UPSTREAM/enter?k=K
//	cluster.rated     three calls per hour per caller
//	cluster.step      reports progress (naming the replica), asks UPSTREAM/step?k=K&r=NAME
//	                  (which may wait), reports again, answers
//	cluster.greet     asks the client for a name (elicitation, naming the replica), answers "Hello, NAME!"
//	cluster.whoami    answers the replica's name (-name)
//	cluster.task      a task (MCP's tasks extension): asks UPSTREAM/step?k=K&r=NAME (which may
//	                  wait), then asks the client whether to go on, answers "KEY done on NAME: ACTION"
//
// K is the call's argument "k".
//
// It prints its base URL on its first line of output and serves until
// killed. Callers name themselves with "Authorization: Bearer NAME", which
// the auth hook takes as their identity.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oxp"
	"github.com/toolexec/toolexec/redis"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	redisURL := flag.String("redis", "", "URL of the Redis the replicas share")
	upstream := flag.String("upstream", "", "base URL of the test's upstream")
	name := flag.String("name", "replica", "this replica's name, as cluster.whoami answers it")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	store, err := redis.Open(ctx, *redisURL, redis.Options{})
	cancel()
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = store.Close() }() // the process is ending

	reg := toolexec.NewRegistry()
	addTools(reg, *upstream, *name)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithStore(store),
		toolexec.WithAuthHook(bearerIdentity), toolexec.WithLeaseTTL(3*time.Second),
		toolexec.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	mux := http.NewServeMux()
	h := mcp.NewHandler(x, mcp.WithServerInfo("cluster-replica", *name), mcp.WithResumeWindow(10*time.Second))
	mux.Handle("/mcp", h)
	mux.Handle("/mcp/", h)
	mux.Handle("/rest/", http.StripPrefix("/rest", toolexec.NewHandler(x)))
	mux.Handle("/oxp/", http.StripPrefix("/oxp", oxp.NewHandler(x)))

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stdout, "http://%s\n", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}

// bearerIdentity takes "Authorization: Bearer NAME" as the caller's
// identity; a call without one is anonymous.
func bearerIdentity(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && id != "" {
			r = r.WithContext(toolexec.ContextWithIdentity(r.Context(), id))
		}
		next.ServeHTTP(w, r)
	})
}

func addTools(reg *toolexec.Registry, upstream, name string) {
	ask := func(ctx context.Context, path string, args map[string]any) (string, error) {
		q := url.Values{"k": {fmt.Sprint(args["k"])}, "r": {name}}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, upstream+path+"?"+q.Encode(), nil)
		if err != nil {
			return "", err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer func() { _ = resp.Body.Close() }() // read; closing only frees the connection
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	text := func(s string) []toolexec.Content { return []toolexec.Content{toolexec.Text(s)} }
	add := func(t toolexec.Tool, h func(ctx context.Context, args map[string]any) (string, error)) {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
		reg.MustAdd(t, func(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			s, err := h(ctx, args)
			if err != nil {
				return nil, false, "", err
			}
			return text(s), false, "", nil
		})
	}
	add(toolexec.Tool{Name: "cluster.cached", Description: "cached for everyone",
		Options: toolexec.ToolOptions{Cache: true, CacheShared: true, CacheTTL: time.Minute}},
		func(ctx context.Context, args map[string]any) (string, error) { return ask(ctx, "/hit", args) })
	add(toolexec.Tool{Name: "cluster.one", Description: "one at a time across the service",
		Options: toolexec.ToolOptions{ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 1}}},
		func(ctx context.Context, args map[string]any) (string, error) { return ask(ctx, "/enter", args) })
	add(toolexec.Tool{Name: "cluster.rated", Description: "three calls per hour per caller",
		Options: toolexec.ToolOptions{RateLimit: &toolexec.RateLimit{Rate: 3, Per: time.Hour}}},
		func(context.Context, map[string]any) (string, error) { return "ok", nil })
	add(toolexec.Tool{Name: "cluster.step", Description: "progress, a pause, progress"},
		func(ctx context.Context, args map[string]any) (string, error) {
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1, Total: 2, Message: "on " + name})
			if _, err := ask(ctx, "/step", args); err != nil {
				return "", err
			}
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 2, Total: 2})
			return "stepped on " + name, nil
		})
	add(toolexec.Tool{Name: "cluster.greet", Description: "asks for a name"},
		func(ctx context.Context, _ map[string]any) (string, error) {
			res, err := toolexec.Elicit(ctx, "name", toolexec.ElicitRequest{Message: "What is your name? (asks " + name + ")",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Hello, %v!", res.Content["name"]), nil
		})
	add(toolexec.Tool{Name: "cluster.whoami", Description: "the replica's name"},
		func(context.Context, map[string]any) (string, error) { return name, nil })
	add(toolexec.Tool{Name: "cluster.task", Description: "a task that waits, then asks to go on",
		Options: toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}},
		func(ctx context.Context, args map[string]any) (string, error) {
			toolexec.BecomeTask(ctx)
			if _, err := ask(ctx, "/step", args); err != nil {
				return "", err
			}
			res, err := toolexec.Elicit(ctx, "go", toolexec.ElicitRequest{Message: "Go on? (asks " + name + ")",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%v done on %s: %s", args["k"], name, res.Action), nil
		})
}
