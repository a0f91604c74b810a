package browser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/explorer"
	"github.com/toolexec/toolexec/mcp"
)

// demoToken is the bearer token the fixture's auth hook accepts.
const demoToken = "s3cret-demo-token"

// xssPayload is put in a tool description and in results: rendered as HTML
// it would set window.__xss or request the image "x".
const xssPayload = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><svg onload="window.__xss=3">`

// weatherSchema is nested on purpose: an object, an array, an enum, bounds,
// a default, a boolean and a oneOf.
const weatherSchema = `{
  "type": "object",
  "properties": {
    "city": {"type": "string", "minLength": 2, "description": "Where to look."},
    "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"},
    "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 3},
    "detailed": {"type": "boolean"},
    "location": {
      "type": "object",
      "properties": {
        "lat": {"type": "number", "minimum": -90, "maximum": 90},
        "lon": {"type": "number", "minimum": -180, "maximum": 180}
      },
      "required": ["lat", "lon"]
    },
    "tags": {"type": "array", "items": {"type": "string", "format": "email"}},
    "when": {
      "oneOf": [
        {"title": "a day", "type": "string", "format": "date"},
        {"title": "a range", "type": "object", "properties": {"from": {"type": "string", "format": "date"}, "to": {"type": "string", "format": "date"}}, "required": ["from"]}
      ]
    }
  },
  "required": ["city"]
}`

// toolNames lists the fixture's tools in registration order.
var toolNames = []string{"echo", "image/dot", "weather", "fail", "media", "xss"}

// fixture returns the test server's handler: the same tools mounted at
//
//	/prefix/api/  execution on, the page's Call on, a bearer-token auth hook
//	/off/         execution on, the page's Call off (the default)
//	/closed/      the executor's gate closed, the page's Call on
//	/docs/api/    as /prefix/api/ without the hostile tool, calling over MCP
//	              (/docs/mcp), for the screenshot
//	/chi          mounted by chi, which serves the page without a trailing slash
func fixture() http.Handler {
	reg := registry(true)
	calm := registry(false)
	quiet := toolexec.WithLogger(slog.New(slog.DiscardHandler))
	open := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(bearer), quiet)
	closed := toolexec.New(reg, reg, quiet)
	docs := toolexec.New(calm, calm, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(bearer), quiet)

	mux := http.NewServeMux()
	mux.Handle("/prefix/api/", http.StripPrefix("/prefix/api", explorer.Wrap(open, toolexec.NewHandler(open),
		explorer.WithExecute(true), explorer.WithProjectLink("toolexec", "https://github.com/toolexec/toolexec"))))
	mux.Handle("/docs/api/", http.StripPrefix("/docs/api", explorer.Wrap(docs, toolexec.NewHandler(docs),
		explorer.WithExecute(true), explorer.WithMCP("/docs/mcp"), explorer.WithProjectLink("toolexec", "https://github.com/toolexec/toolexec"))))
	mux.Handle("/docs/mcp", mcp.NewHandler(docs))
	r := chi.NewRouter()
	r.Mount("/chi", explorer.Wrap(open, toolexec.NewHandler(open)))
	mux.Handle("/chi", r)
	mux.Handle("/chi/", r)
	mux.Handle("/off/", http.StripPrefix("/off", explorer.Wrap(open, toolexec.NewHandler(open))))
	mux.Handle("/closed/", http.StripPrefix("/closed", explorer.Wrap(closed, toolexec.NewHandler(closed), explorer.WithExecute(true))))
	return mux
}

func bearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+demoToken {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// registry holds the fixture's tools; hostile adds the tool whose texts are
// an XSS payload.
func registry(hostile bool) *toolexec.Registry {
	reg := toolexec.NewRegistry()
	readOnly := &toolexec.ToolAnnotations{ReadOnlyHint: toolexec.Bool(true)}
	reg.MustAdd(toolexec.Tool{
		Name: "echo", Title: "Echo", Version: "1.0.0", Annotations: readOnly,
		Description: "Returns the text it is given.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	}, func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		text, _ := args["text"].(string)
		return []toolexec.Content{toolexec.Text(text)}, false, "trace-echo-1", nil
	})
	reg.MustAdd(toolexec.Tool{
		Name: "image/dot", Title: "A dot", Annotations: readOnly,
		Description: "Returns a small PNG image.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{&toolexec.ImageContent{Data: dot(), MIMEType: "image/png"}}, false, "", nil
	})
	toolexec.MustAddTool(reg, toolexec.Tool{
		Name: "weather", Title: "Weather forecast",
		Description: "Forecasts the weather: a nested input schema and a structured result.",
		InputSchema: json.RawMessage(weatherSchema),
	}, forecast)
	reg.MustAdd(toolexec.Tool{
		Name: "fail", Description: "Always reports an error.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("the tool failed on purpose")}, true, "", nil
	})
	reg.MustAdd(toolexec.Tool{
		Name: "media", Description: "Returns audio, an embedded resource and a resource link.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{
			&toolexec.AudioContent{Data: silence(), MIMEType: "audio/wav"},
			&toolexec.EmbeddedResource{Resource: &toolexec.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "embedded notes"}},
			&toolexec.ResourceLink{URI: "https://example.com/report.pdf", Name: "report.pdf", Description: "the full report", MIMEType: "application/pdf"},
		}, false, "", nil
	})
	if !hostile {
		return reg
	}
	reg.MustAdd(toolexec.Tool{
		Name: "xss", Title: xssPayload, Description: "Hostile text: " + xssPayload,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"field":{"type":"string","description":` + jsonString(xssPayload) + `}}}`),
	}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{
			toolexec.Text(xssPayload),
			&toolexec.ResourceLink{URI: "javascript:window.__xss=4", Name: xssPayload},
		}, false, xssPayload, nil
	})
	return reg
}

type weatherIn struct {
	City  string `json:"city"`
	Units string `json:"units"`
	Days  int    `json:"days"`
}

type day struct {
	Day  int    `json:"day"`
	High int    `json:"high"`
	Sky  string `json:"sky"`
}

type weatherOut struct {
	City     string `json:"city"`
	Units    string `json:"units"`
	Forecast []day  `json:"forecast"`
}

// forecast is a typed tool: its output is the result's structuredContent.
func forecast(_ context.Context, in weatherIn) (weatherOut, error) {
	out := weatherOut{City: in.City, Units: in.Units}
	for i := 1; i <= in.Days; i++ {
		out.Forecast = append(out.Forecast, day{Day: i, High: 20 + i, Sky: "clear"})
	}
	return out, nil
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func dot() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for y := 0; y < 16; y++ {
		for x := 0; x < 16; x++ {
			img.Set(x, y, color.RGBA{R: 0x1f, G: 0x5f, B: 0xbf, A: 0xff})
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return buf.Bytes()
}

// silence is a valid 8 kHz mono WAV file of 100 ms of silence.
func silence() []byte {
	const samples = 800
	var b bytes.Buffer
	le := func(v uint32, n int) {
		for i := 0; i < n; i++ {
			b.WriteByte(byte(v >> (8 * i)))
		}
	}
	b.WriteString("RIFF")
	le(36+samples, 4)
	b.WriteString("WAVEfmt ")
	le(16, 4)
	le(1, 2)    // PCM
	le(1, 2)    // mono
	le(8000, 4) // sample rate
	le(8000, 4) // byte rate
	le(1, 2)    // block align
	le(8, 2)    // bits per sample
	b.WriteString("data")
	le(samples, 4)
	for i := 0; i < samples; i++ {
		b.WriteByte(128)
	}
	return b.Bytes()
}
