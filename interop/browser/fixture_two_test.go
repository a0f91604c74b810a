//lint:file-ignore SA1019 the page shows log lines as long as MCP carries them

package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/explorer"
	"github.com/toolexec/toolexec/mcp"
)

// longTitle is a title with no place to break a line.
var longTitle = strings.Repeat("W", 120)

// Schemas that recurse: in two branches, as a list, mutually with every
// branch required, and in two required branches (a tree of required
// nodes that never ends).
const (
	treeSchema = `{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},
		"left":{"$ref":"#/$defs/node"},"right":{"$ref":"#/$defs/node"}}}},
		"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"]}`
	listSchema = `{"$defs":{"cell":{"type":"object","properties":{"v":{"type":"string"},"next":{"$ref":"#/$defs/cell"}},"required":["v"]}},
		"$ref":"#/$defs/cell"}`
	mutualSchema = `{"$defs":{"a":{"type":"object","properties":{"b":{"$ref":"#/$defs/b"}},"required":["b"]},
		"b":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"required":["a"]}},
		"type":"object","properties":{"start":{"$ref":"#/$defs/a"}},"required":["start"]}`
	forestSchema = `{"$defs":{"n":{"type":"object","properties":{"l":{"$ref":"#/$defs/n"},"r":{"$ref":"#/$defs/n"}},"required":["l","r"]}},
		"type":"object","properties":{"top":{"$ref":"#/$defs/n"}},"required":["top"]}`
	nullableSchema = `{"type":"object","properties":{
		"count":{"anyOf":[{"type":"integer"},{"type":"null"}]},
		"note":{"type":["string","null"]},
		"limit":{"type":"integer","exclusiveMinimum":0},
		"ratio":{"type":"number","exclusiveMinimum":0}},
		"required":["count"]}`
)

// bigSchema is an object schema of 40 optional string properties, each
// with a description: pretty-printed it is far taller than its box.
func bigSchema() json.RawMessage {
	props := make(map[string]any, 40)
	for i := 1; i <= 40; i++ {
		props[fmt.Sprintf("p%02d", i)] = map[string]any{"type": "string", "description": fmt.Sprintf("Property number %d.", i)}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	return b
}

// roundTwo is the fixture of the page's MCP mode and the tools that try
// it: their handlers report to the test through these channels.
type roundTwo struct {
	steps     chan struct{} // progress waits for one before each next step
	started   chan string   // hang says it is running, with its surface
	cancelled chan error    // hang reports why its context ended
}

func newRoundTwo() *roundTwo {
	return &roundTwo{steps: make(chan struct{}), started: make(chan string, 4), cancelled: make(chan error, 4)}
}

// handler mounts, with a bearer-token auth hook and a per-caller list that
// shows "secret" only to callers with the token:
//
//	/two/api/   the page with Call and MCP on; REST below it
//	/two/mcp    the MCP endpoint
//	/long/      the same page with a title that does not break
func (f *roundTwo) handler() http.Handler {
	reg := f.registry()
	quiet := toolexec.WithLogger(slog.New(slog.DiscardHandler))
	onlyWithToken := func(r *http.Request, tools []toolexec.Tool) []toolexec.Tool {
		if r.Header.Get("Authorization") == "Bearer "+demoToken {
			return tools
		}
		out := make([]toolexec.Tool, 0, len(tools))
		for _, t := range tools {
			if t.Name != "secret" {
				out = append(out, t)
			}
		}
		return out
	}
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(bearer), toolexec.WithToolFilter(onlyWithToken), quiet)
	mux := http.NewServeMux()
	mux.Handle("/two/api/", http.StripPrefix("/two/api", explorer.Wrap(x, toolexec.NewHandler(x),
		explorer.WithExecute(true), explorer.WithMCP("/two/mcp"))))
	mux.Handle("/two/mcp", mcp.NewHandler(x))
	mux.Handle("/long/", http.StripPrefix("/long", explorer.Wrap(x, toolexec.NewHandler(x),
		explorer.WithExecute(true), explorer.WithTitle(longTitle))))
	return mux
}

// twoNames lists the tools every caller sees, in registration order.
var twoNames = []string{"echo", "args", "tree", "list", "mutual", "forest", "nullable", "progress", "hang", "ask", "badout", "sum", "region", "big", longTitle}

func (f *roundTwo) registry() *toolexec.Registry {
	reg := toolexec.NewRegistry()
	add := func(tool toolexec.Tool, h toolexec.ToolCallHandlerFunc) {
		if tool.InputSchema == nil {
			tool.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		reg.MustAdd(tool, h)
	}
	text := func(s string) []toolexec.Content { return []toolexec.Content{toolexec.Text(s)} }
	add(toolexec.Tool{Name: "echo", Description: "Returns the text it is given.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		func(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			s, _ := args["text"].(string)
			return text(s), false, "", nil
		})
	argsEcho := func(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		b, _ := json.Marshal(args)
		return text(string(b)), false, "", nil
	}
	add(toolexec.Tool{Name: "args", Description: "Returns its arguments as JSON text.",
		InputSchema: json.RawMessage(`{"type":"object"}`)}, argsEcho)
	add(toolexec.Tool{Name: "tree", Description: "A binary tree: recursion in two branches.", InputSchema: json.RawMessage(treeSchema)}, argsEcho)
	add(toolexec.Tool{Name: "list", Description: "A linked list.", InputSchema: json.RawMessage(listSchema)}, argsEcho)
	add(toolexec.Tool{Name: "mutual", Description: "Mutual recursion, every branch required.", InputSchema: json.RawMessage(mutualSchema)}, argsEcho)
	add(toolexec.Tool{Name: "forest", Description: "Two required branches without end.", InputSchema: json.RawMessage(forestSchema),
		Options: toolexec.ToolOptions{SkipValidation: true}}, argsEcho)
	add(toolexec.Tool{Name: "nullable", Description: "Nullable fields and exclusive bounds.", InputSchema: json.RawMessage(nullableSchema)}, argsEcho)

	add(toolexec.Tool{Name: "progress", Description: "Reports three steps of progress, with log messages."},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			for i := 1; i <= 3; i++ {
				_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: float64(i), Total: 3, Message: "step " + string(rune('0'+i)) + " " + xssPayload})
				_ = toolexec.Log(ctx, toolexec.LogMessage{Level: toolexec.LogWarning, Logger: "progress", Data: "log line " + string(rune('0'+i)) + " " + xssPayload})
				select {
				case <-f.steps:
				case <-ctx.Done():
					return nil, false, "", ctx.Err()
				}
			}
			return text("done"), false, "", nil
		})
	add(toolexec.Tool{Name: "hang", Description: "Waits until the call is cancelled."},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			surface := "rest"
			if toolexec.PeerFromContext(ctx) != nil {
				surface = "mcp"
			}
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1, Message: "waiting"})
			f.started <- surface
			<-ctx.Done()
			f.cancelled <- ctx.Err()
			return nil, false, "", ctx.Err()
		})
	add(toolexec.Tool{Name: "ask", Description: "Asks for a name, then greets."},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			res, err := toolexec.Elicit(ctx, "who", toolexec.ElicitRequest{
				Message: "Who are you? " + xssPayload,
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{
					"name":{"type":"string","title":` + jsonString(xssPayload) + `,"description":` + jsonString(xssPayload) + `},
					"age":{"type":"integer","minimum":0}},"required":["name"]}`),
			})
			if err != nil {
				return nil, false, "", err
			}
			if res.Action != "accept" {
				return text("no answer: " + res.Action), false, "", nil
			}
			name, _ := res.Content["name"].(string)
			return text("Hello, " + name + "!"), false, "", nil
		})
	// badout breaks its own output schema; with validation off for it, the
	// pipeline lets that through, and the page must show it.
	reg.MustAdd(toolexec.Tool{Name: "badout", Description: "Answers a structuredContent its output schema refuses.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{}}`),
		OutputSchema: json.RawMessage(`{"type":"object","description":` + jsonString(xssPayload) + `,"properties":{"n":{"type":"integer"}},"required":["n"]}`),
		Options:      toolexec.ToolOptions{SkipValidation: true}},
		structured{&toolexec.CallToolResult{Content: text(`{"n":"not a number"}`), StructuredContent: map[string]any{"n": xssPayload}}})
	toolexec.MustAddTool(reg, toolexec.Tool{Name: "sum", Description: "Adds two integers: a typed tool with an output schema."},
		func(_ context.Context, in struct {
			A int `json:"a"`
			B int `json:"b"`
		}) (struct {
			Sum int `json:"sum"`
		}, error) {
			return struct {
				Sum int `json:"sum"`
			}{in.A + in.B}, nil
		})
	add(toolexec.Tool{Name: "region", Description: "A parameter MCP carries in a header too (x-mcp-header).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}},"required":["region"]}`)}, argsEcho)
	reg.MustAdd(toolexec.Tool{Name: "big", Description: "A large schema, a long answer and many log lines: every block that scrolls does.",
		InputSchema: bigSchema(), OutputSchema: bigSchema()}, big{})
	add(toolexec.Tool{Name: longTitle, Title: longTitle, Description: "A name and a title that do not break."}, argsEcho)
	add(toolexec.Tool{Name: "secret", Description: "Listed only for callers with the token."}, argsEcho)
	return reg
}

// structured is a handler that answers a whole result, structuredContent
// included.
type structured struct{ res *toolexec.CallToolResult }

func (s structured) HandleCall(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
	return s.res.Content, s.res.IsError, "", nil
}

func (s structured) HandleCallResult(context.Context, string, map[string]any) (*toolexec.CallToolResult, error) {
	return s.res, nil
}

// big logs 60 lines, then answers its arguments as structuredContent and,
// twenty times over, as text: a raw response taller than its box.
type big struct{}

func (big) HandleCall(ctx context.Context, name string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	res, err := big{}.HandleCallResult(ctx, name, args)
	if err != nil {
		return nil, false, "", err
	}
	return res.Content, false, "", nil
}

func (big) HandleCallResult(ctx context.Context, _ string, args map[string]any) (*toolexec.CallToolResult, error) {
	for i := 1; i <= 60; i++ {
		_ = toolexec.Log(ctx, toolexec.LogMessage{Level: toolexec.LogInfo, Logger: "big", Data: fmt.Sprintf("log line %d", i)})
	}
	b, err := json.MarshalIndent(args, "", "  ")
	if err != nil {
		return nil, err
	}
	return &toolexec.CallToolResult{Content: []toolexec.Content{toolexec.Text(strings.Repeat(string(b)+"\n", 20))}, StructuredContent: args}, nil
}
