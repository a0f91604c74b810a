package toolexec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/toolexec/toolexec"
)

// An interceptor sees every call before and after it runs: here, an audit
// line with the tool, the surface and the outcome.
func ExampleInterceptor() {
	audit := func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, c *toolexec.Call) (*toolexec.CallToolResult, error) {
			res, err := next(ctx, c)
			fmt.Printf("audit: %s via %s: err=%v isError=%v\n", c.Tool.Name, c.Surface, err, res != nil && res.IsError)
			return res, err
		}
	}
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "greet"}, func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text(fmt.Sprintf("Hello, %v!", args["name"]))}, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithInterceptors(audit))

	res, _ := x.Call(context.Background(), toolexec.CallRequest{Name: "greet", Arguments: json.RawMessage(`{"name":"Ada"}`)})
	fmt.Println(res.Text())
	// Output:
	// audit: greet via go: err=<nil> isError=false
	// Hello, Ada!
}

// A timeout ends a call at its deadline, whether or not the handler
// notices; a tool's own timeout replaces the Executor's.
func ExampleWithTimeout() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "crawl", Options: toolexec.ToolOptions{Timeout: 20 * time.Millisecond}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			<-ctx.Done() // a long crawl, cut short
			return nil, false, "", ctx.Err()
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithTimeout(time.Minute))

	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "crawl"})
	e, _ := toolexec.AsError(err)
	fmt.Println(e.Stage, e.Code, e.Message)
	// Output:
	// timeout timeout Tool crawl timed out after 20ms
}

// Input transforms rewrite the arguments before validation and the
// handler; output transforms rewrite the result.
func ExampleWithInputTransforms() {
	trim := func(_ context.Context, c *toolexec.Call) (map[string]any, error) {
		for k, v := range c.Arguments {
			if s, ok := v.(string); ok {
				c.Arguments[k] = strings.TrimSpace(s)
			}
		}
		return c.Arguments, nil
	}
	shout := func(_ context.Context, _ *toolexec.Call, res *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
		return toolexec.NewResult([]toolexec.Content{toolexec.Text(strings.ToUpper(res.Text()))}, res.IsError, res.TraceID()), nil
	}
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "greet"}, func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text(fmt.Sprintf("Hello, %v!", args["name"]))}, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true),
		toolexec.WithInputTransforms(trim), toolexec.WithOutputTransforms(shout))

	res, _ := x.Call(context.Background(), toolexec.CallRequest{Name: "greet", Arguments: json.RawMessage(`{"name":"  Ada  "}`)})
	fmt.Println(res.Text())
	// Output:
	// HELLO, ADA!
}

// A tool that opts into the cache runs once per distinct arguments while
// its results are fresh.
func ExampleToolOptions_cache() {
	runs := 0
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "rate", Options: toolexec.ToolOptions{Cache: true, CacheShared: true, CacheTTL: time.Minute}},
		func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			runs++
			return []toolexec.Content{toolexec.Text(fmt.Sprintf("%v/EUR: 1.08", args["from"]))}, false, "", nil
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	for _, args := range []string{`{"from":"USD"}`, `{"from": "USD"}`, `{"from":"GBP"}`} {
		res, _ := x.Call(context.Background(), toolexec.CallRequest{Name: "rate", Arguments: json.RawMessage(args)})
		fmt.Println(res.Text())
	}
	fmt.Println("handler runs:", runs)
	// Output:
	// USD/EUR: 1.08
	// USD/EUR: 1.08
	// GBP/EUR: 1.08
	// handler runs: 2
}
