package toolexec_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/toolexec/toolexec"
)

// upper is a handler in the basic form: the tool's name and arguments.
func upper(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	s, _ := args["text"].(string)
	return []toolexec.Content{toolexec.Text(strings.ToUpper(s))}, false, "", nil
}

// sleep is a handler in the context form that waits, and stops waiting
// when its call's context ends.
func sleep(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-t.C:
		return []toolexec.Content{toolexec.Text("done")}, false, "", nil
	case <-ctx.Done():
		return nil, false, "", ctx.Err()
	}
}

// A Registry gives each tool a handler of its own. Executor.Call runs a
// tool in process through the whole pipeline; a call whose context ends
// stops a handler that watches it.
func ExampleRegistry_handlerPerTool() {
	ctx := context.Background()
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "text_upper", Description: "Upper-cases text."}, upper)
	reg.MustAdd(toolexec.Tool{Name: "sleep", Description: "Waits, then answers."}, sleep)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	res, err := x.Call(ctx, toolexec.CallRequest{Name: "text_upper", Arguments: json.RawMessage(`{"text":"hi"}`)})
	// res.Text() == "HI"
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text())

	soon, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	_, err = x.Call(soon, toolexec.CallRequest{Name: "sleep"})
	e, _ := toolexec.AsError(err)
	fmt.Println(e.Stage, e.Code)
	// Output:
	// HI
	// timeout timeout
}

// WithStrictToolNames makes a tool name outside MCP's recommended form an
// error of Registry.Add, rather than a warning logged once.
func ExampleWithStrictToolNames() {
	logger := slog.New(slog.DiscardHandler)
	reg := toolexec.NewRegistry(toolexec.WithStrictToolNames(), toolexec.WithRegistryLogger(logger))
	fmt.Println(reg.Add(toolexec.Tool{Name: "weather report"}, upper))
	// Output:
	// toolexec: Registry.Add: tool name "weather report" is not of the form MCP recommends, 1 to 128 characters, each A-Z, a-z, 0-9, '_', '-' or '.' (MCP 2025-11-25, "Tool names"): it contains ' ' at byte 7 (WithStrictToolNames)
}

// chart answers content blocks of two kinds: a caption and an image.
func chart(_ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
	pngBytes := []byte("\x89PNG\r\n\x1a\n") // a PNG's signature, where a real chart's bytes go
	return []toolexec.Content{
		toolexec.Text("Here is the chart."),
		&toolexec.ImageContent{Data: pngBytes, MIMEType: "image/png"},
	}, false, "", nil
}

// A result holds any number of content blocks; an image's bytes travel in
// base64.
func ExampleImageContent() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "chart"}, chart)
	h := toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/tools/chart/call", nil))
	fmt.Print(rec.Body.String())
	// Output:
	// {"content":[{"type":"text","text":"Here is the chart."},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"isError":false}
}

// ordersDB is what splitOrders needs of a *sql.DB.
type ordersDB interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// unreachableDB is a database that cannot be reached.
type unreachableDB struct{}

func (unreachableDB) QueryContext(context.Context, string, ...any) (*sql.Rows, error) {
	return nil, errors.New("connection refused")
}

// splitOrders divides the orders' total between b people. A b of zero is
// the caller's mistake, said in the result (isError); a failed query is
// nothing the caller can fix: a Go error.
func splitOrders(db ordersDB) toolexec.ToolCallHandlerFunc {
	return func(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		b, _ := args["people"].(float64)
		q := "SELECT coalesce(sum(total), 0) FROM orders"
		if b == 0 {
			return []toolexec.Content{toolexec.Text("cannot divide by zero")}, true, "", nil
		}
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, false, "", fmt.Errorf("loading orders: %w", err)
		}
		defer rows.Close()
		var total float64
		for rows.Next() {
			if err := rows.Scan(&total); err != nil {
				return nil, false, "", fmt.Errorf("loading orders: %w", err)
			}
		}
		if err := rows.Err(); err != nil {
			return nil, false, "", fmt.Errorf("loading orders: %w", err)
		}
		return []toolexec.Content{toolexec.Text(fmt.Sprint(total / b))}, false, "", nil
	}
}

// A result with isError is an answer, written for the caller to act on; a
// Go error is a failed call.
func ExampleToolCallHandlerFunc_isError() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "orders_split"}, splitOrders(unreachableDB{}))
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	for _, args := range []string{`{"people":0}`, `{"people":3}`} {
		res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "orders_split", Arguments: json.RawMessage(args)})
		if e, ok := toolexec.AsError(err); ok {
			fmt.Printf("failed at %s (%s): %s\n", e.Stage, e.Code, e.Message)
			continue
		}
		fmt.Printf("isError=%t: %s\n", res.IsError, res.Text())
	}
	// Output:
	// isError=true: cannot divide by zero
	// failed at execute (tool_error): loading orders: connection refused
}
