package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolexec/toolexec"
)

// The payloads the suite checks the content tools' answers against.
const (
	// testImage is a 1x1 red PNG pixel.
	testImage = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	// testAudio is a minimal WAV file.
	testAudio = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// jsonSchema202012 is the input schema of json_schema_2020_12_tool: the
// suite checks that tools/list carries $schema, $defs, $anchor, the
// composition and conditional keywords and additionalProperties unchanged.
const jsonSchema202012 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "$anchor": "addressDef",
      "type": "object",
      "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
    }
  },
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"},
    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
    "phone": {"type": "string"},
    "email": {"type": "string"}
  },
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]},
  "additionalProperties": false
}`

// customHeadersSchema declares a parameter mirrored into the Mcp-Param-Region
// request header (MCP 2026-07-28's x-mcp-header).
const customHeadersSchema = `{
  "type": "object",
  "properties": {
    "region": {"type": "string", "description": "Where to run", "x-mcp-header": "Region"},
    "query": {"type": "string", "description": "What to run"}
  },
  "required": ["region"]
}`

// handler is the untyped handler form every tool here uses.
type handler = func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error)

// answer returns a handler that always answers content.
func answer(content ...toolexec.Content) handler {
	return func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return content, false, "", nil
	}
}

func mustDecode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// addTools registers the tools of the suite's protocol-level scenarios:
// tools-list, the tools-call content scenarios, tools-call-error,
// json-schema-2020-12, and http-custom-header-server-validation.
func addTools(reg *toolexec.Registry) {
	image, audio := mustDecode(testImage), mustDecode(testAudio)
	reg.MustAdd(toolexec.Tool{Name: "test_simple_text", Description: "Tests simple text content response"},
		answer(toolexec.Text("This is a simple text response for testing.")))
	reg.MustAdd(toolexec.Tool{Name: "test_image_content", Description: "Tests image content response"},
		answer(&toolexec.ImageContent{Data: image, MIMEType: "image/png"}))
	reg.MustAdd(toolexec.Tool{Name: "test_audio_content", Description: "Tests audio content response"},
		answer(&toolexec.AudioContent{Data: audio, MIMEType: "audio/wav"}))
	reg.MustAdd(toolexec.Tool{Name: "test_embedded_resource", Description: "Tests embedded resource content response"},
		answer(&toolexec.EmbeddedResource{Resource: &toolexec.ResourceContents{
			URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
		}}))
	mixed, _ := json.Marshal(map[string]any{"test": "data", "value": 123})
	reg.MustAdd(toolexec.Tool{Name: "test_multiple_content_types",
		Description: "Tests response with multiple content types (text, image, resource)"},
		answer(toolexec.Text("Multiple content types test:"),
			&toolexec.ImageContent{Data: image, MIMEType: "image/png"},
			&toolexec.EmbeddedResource{Resource: &toolexec.ResourceContents{
				URI: "test://mixed-content-resource", MIMEType: "application/json", Text: string(mixed),
			}}))
	reg.MustAdd(toolexec.Tool{Name: "test_error_handling", Description: "Tests error response handling"},
		func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
			//lint:ignore ST1005 the conformance suite's scenario expects these words
			return nil, false, "", errors.New("This tool intentionally returns an error for testing")
		})
	reg.MustAdd(toolexec.Tool{Name: "test_reconnection",
		Description: "Answers at once: a stateless server has no stream to close and resume"},
		answer(toolexec.Text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.")))
	reg.MustAdd(toolexec.Tool{Name: "json_schema_2020_12_tool",
		Description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
		InputSchema: json.RawMessage(jsonSchema202012)},
		func(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			b, _ := json.Marshal(args)
			return []toolexec.Content{toolexec.Text(fmt.Sprintf("JSON Schema 2020-12 tool called with: %s", b))}, false, "", nil
		})
	reg.MustAdd(toolexec.Tool{Name: "test_custom_headers",
		Description: "A tool whose region parameter is mirrored into the Mcp-Param-Region header",
		InputSchema: json.RawMessage(customHeadersSchema)},
		func(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text(fmt.Sprintf("region=%v", args["region"]))}, false, "", nil
		})
}
