package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/toolexec/toolexec"
)

// maxSleep caps the sleep tool, so a demo call can never hold a connection
// for long. The server's WriteTimeout is set above it.
const maxSleep = 30 * time.Second

// newRegistry registers the demo tools. Together they show the range of what
// a handler can answer: text, JSON, an image, a logical tool error (isError),
// a failed call (a Go error), a slow call that stops when the client goes
// away, and identity handed over by the auth hook. swatch is the PNG the
// image tool returns.
//
// The handlers use both forms toolexec accepts: the context form
// (ToolCallHandlerFunc) where they need the context, and the basic form
// (BasicToolCallHandlerFunc) where they do not.
//
// Every name is one MCP recommends and models' function-calling APIs
// accept as it is (letters, digits and '_': "text_upper", not
// "text/upper"), so agent frameworks pass them to a model unchanged;
// WithStrictToolNames makes a name that is not of MCP's form a registration
// error rather than a warning.
func newRegistry(swatch []byte) *toolexec.Registry {
	reg := toolexec.NewRegistry(toolexec.WithStrictToolNames())
	readOnly := &toolexec.ToolAnnotations{ReadOnlyHint: toolexec.Bool(true), OpenWorldHint: toolexec.Bool(false)}

	reg.MustAdd(toolexec.Tool{
		Name:        "echo",
		Title:       "Echo",
		Description: "Returns the text it is given. Send an X-Request-Id header to see it come back as the trace id in _meta.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Annotations: readOnly,
	}, toolexec.ToolCallHandlerFunc(echo))

	reg.MustAdd(toolexec.Tool{
		Name:        "text_upper",
		Title:       "Upper case",
		Description: "Returns the text in upper case.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Annotations: readOnly,
	}, toolexec.BasicToolCallHandlerFunc(upper))

	reg.MustAdd(toolexec.Tool{
		Name:        "stats",
		Title:       "Statistics",
		Description: "Summarises a list of numbers as a JSON object: count, sum, mean, min and max.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"numbers":{"type":"array","items":{"type":"number"},"minItems":1}},"required":["numbers"]}`),
		Annotations: readOnly,
	}, toolexec.BasicToolCallHandlerFunc(stats))

	reg.MustAdd(toolexec.Tool{
		Name:        "image_swatch",
		Title:       "Colour swatch",
		Description: "Returns a small PNG image (base64 in an image content block).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
		Annotations: readOnly,
	}, toolexec.BasicToolCallHandlerFunc(func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{&toolexec.ImageContent{Data: swatch, MIMEType: "image/png"}}, false, "", nil
	}))

	reg.MustAdd(toolexec.Tool{
		Name:        "divide",
		Title:       "Divide",
		Description: "Divides a by b. Dividing by zero is a tool error: HTTP 500 with isError true.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
		Annotations: readOnly,
	}, toolexec.BasicToolCallHandlerFunc(divide))

	reg.MustAdd(toolexec.Tool{
		Name:        "fail",
		Title:       "Always fails",
		Description: "Always fails with a Go error, to show how a failed call is answered.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	}, toolexec.BasicToolCallHandlerFunc(func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", errors.New("fail always fails: this is how a handler error is answered")
	}))

	reg.MustAdd(toolexec.Tool{
		Name:        "sleep",
		Title:       "Sleep",
		Description: fmt.Sprintf("Waits the given number of seconds (default 5, at most %d), then answers. It stops as soon as the client goes away.", int(maxSleep/time.Second)),
		InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"seconds":{"type":"number","minimum":0,"maximum":%d}}}`, int(maxSleep/time.Second))),
		Annotations: readOnly,
	}, toolexec.ToolCallHandlerFunc(sleep))

	reg.MustAdd(toolexec.Tool{
		Name:        "whoami",
		Title:       "Who am I",
		Description: "Reports the identity the auth hook found for this call.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
		Annotations: readOnly,
	}, toolexec.ToolCallHandlerFunc(func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		id, ok := identityFrom(ctx)
		if !ok {
			return []toolexec.Content{toolexec.Text("no identity: this call did not pass the auth hook")}, false, "", nil
		}
		return []toolexec.Content{toolexec.Text("you are " + id)}, false, "", nil
	}))

	addTypedTools(reg)
	addInteractiveTools(reg)
	return reg
}

// echo uses the context form to read the HTTP request: a client's
// X-Request-Id becomes the call's trace id (_meta._trace_id).
func echo(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	text, ok := args["text"].(string)
	if !ok {
		return []toolexec.Content{toolexec.Text(`"text" must be a string`)}, true, "", nil
	}
	var traceID string
	if r := toolexec.RequestFromContext(ctx); r != nil {
		traceID = r.Header.Get("X-Request-Id")
	}
	return []toolexec.Content{toolexec.Text(text)}, false, traceID, nil
}

func upper(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	text, ok := args["text"].(string)
	if !ok {
		return []toolexec.Content{toolexec.Text(`"text" must be a string`)}, true, "", nil
	}
	return []toolexec.Content{toolexec.Text(strings.ToUpper(text))}, false, "", nil
}

// stats answers structured data as a JSON text block.
func stats(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	list, ok := args["numbers"].([]any)
	if !ok || len(list) == 0 {
		return []toolexec.Content{toolexec.Text(`"numbers" must be a non-empty array of numbers`)}, true, "", nil
	}
	out := struct {
		Count int     `json:"count"`
		Sum   float64 `json:"sum"`
		Mean  float64 `json:"mean"`
		Min   float64 `json:"min"`
		Max   float64 `json:"max"`
	}{Count: len(list), Min: math.Inf(1), Max: math.Inf(-1)}
	for i, v := range list {
		n, ok := v.(float64)
		if !ok {
			return []toolexec.Content{toolexec.Text(fmt.Sprintf(`"numbers"[%d] is not a number`, i))}, true, "", nil
		}
		out.Sum += n
		out.Min = min(out.Min, n)
		out.Max = max(out.Max, n)
	}
	out.Mean = out.Sum / float64(out.Count)
	data, err := json.Marshal(out)
	if err != nil { // only an overflow to ±Inf gets here
		return nil, false, "", fmt.Errorf("stats: %w", err)
	}
	return []toolexec.Content{toolexec.Text(string(data))}, false, "", nil
}

// divide reports division by zero as a logical tool error (isError): the
// call worked, the answer is "no".
func divide(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	a, okA := args["a"].(float64)
	b, okB := args["b"].(float64)
	if !okA || !okB {
		return []toolexec.Content{toolexec.Text(`"a" and "b" must be numbers`)}, true, "", nil
	}
	if b == 0 {
		return []toolexec.Content{toolexec.Text("cannot divide by zero")}, true, "", nil
	}
	return []toolexec.Content{toolexec.Text(strconv.FormatFloat(a/b, 'g', -1, 64))}, false, "", nil
}

// sleep waits, and gives up as soon as ctx is done: the context ends when
// the HTTP client goes away.
func sleep(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	d := 5 * time.Second
	if v, ok := args["seconds"]; ok {
		s, ok := v.(float64)
		if !ok || s < 0 || s > maxSleep.Seconds() {
			return []toolexec.Content{toolexec.Text(fmt.Sprintf(`"seconds" must be a number from 0 to %d`, int(maxSleep/time.Second)))}, true, "", nil
		}
		d = time.Duration(s * float64(time.Second))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return []toolexec.Content{toolexec.Text("slept " + d.String())}, false, "", nil
	case <-ctx.Done():
		return nil, false, "", ctx.Err()
	}
}

// makeSwatch draws the image tool's 16x16 PNG: a colour gradient.
func makeSwatch() ([]byte, error) {
	const size = 16
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := range size {
		for x := range size {
			img.Set(x, y, color.NRGBA{R: uint8(x * 255 / (size - 1)), G: uint8(y * 255 / (size - 1)), B: 160, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
