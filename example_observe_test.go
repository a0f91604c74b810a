package toolexec_test

import (
	"context"
	"fmt"

	"github.com/toolexec/toolexec"
)

// stagePrinter is an Observer that prints each stage as it starts and each
// call's outcome.
type stagePrinter struct{}

func (stagePrinter) StartCall(ctx context.Context, info toolexec.CallInfo) (context.Context, toolexec.CallObserver) {
	fmt.Println("call", info.Name, "over", info.Surface)
	return ctx, stagePrinterCall{}
}

type stagePrinterCall struct{}

func (stagePrinterCall) Resolved(t *toolexec.Tool)                  {}
func (stagePrinterCall) Arguments(map[string]any)                   {}
func (stagePrinterCall) CacheHit(context.Context, bool)             {}
func (stagePrinterCall) Resume(ctx context.Context) context.Context { return ctx }
func (stagePrinterCall) TraceID() string                            { return "" }
func (stagePrinterCall) End(res *toolexec.CallToolResult, err error) {
	fmt.Println("ended, error:", err)
}
func (stagePrinterCall) StartStage(ctx context.Context, s toolexec.StageInfo) (context.Context, toolexec.StageObserver) {
	if s.Direction != "" {
		fmt.Println("stage", s.Stage, s.Direction)
	} else {
		fmt.Println("stage", s.Stage)
	}
	return ctx, stagePrinterStage{}
}

type stagePrinterStage struct{}

func (stagePrinterStage) End(*toolexec.CallToolResult, error) {}

// An Observer sees every call and each stage that does work; the
// OpenTelemetry one (module github.com/toolexec/toolexec/otel) turns them
// into spans and metrics.
func ExampleWithObserver() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "add", InputSchema: []byte(`{"type":"object","required":["a","b"]}`)},
		func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text(fmt.Sprint(args["a"].(float64) + args["b"].(float64)))}, false, "", nil
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithObserver(stagePrinter{}))

	_, _ = x.Call(context.Background(), toolexec.CallRequest{Name: "add", Arguments: []byte(`{"a":1,"b":2}`)})
	// Output:
	// call add over go
	// stage validate input
	// stage execute
	// ended, error: <nil>
}
