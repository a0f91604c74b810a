package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// A tool declares, in its inputSchema, the parameters a 2026-07-28 client
// mirrors into Mcp-Param-{Name} request headers: a property whose schema
// holds "x-mcp-header": "Name", reachable from the root through properties
// alone. The handler checks each such header against the arguments before
// the call runs, so that a gateway routing on the header and the tool
// reading the body cannot be told two different things.

// headerParam is one parameter a tool mirrors into a header.
type headerParam struct {
	header string   // the canonical Mcp-Param-{Name} header
	path   []string // the chain of properties from the root
}

// xMCPHeader is the schema keyword that names a parameter's header.
const xMCPHeader = "x-mcp-header"

// headerParams lists the mirrored parameters of schema. Schemas without the
// keyword, nearly all of them, are not decoded.
func headerParams(schema []byte) []headerParam {
	if !bytes.Contains(schema, []byte(xMCPHeader)) {
		return nil
	}
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	var out []headerParam
	var walk func(node map[string]any, path []string)
	walk = func(node map[string]any, path []string) {
		props, _ := node["properties"].(map[string]any)
		for name, p := range props {
			prop, ok := p.(map[string]any)
			if !ok {
				continue
			}
			at := append(append([]string(nil), path...), name)
			if h, ok := prop[xMCPHeader].(string); ok && h != "" {
				out = append(out, headerParam{header: http.CanonicalHeaderKey(paramHeaderStart + h), path: at})
			}
			walk(prop, at)
		}
	}
	walk(root, nil)
	return out
}

// checkParamHeaders checks the Mcp-Param-* headers a tool's schema declares
// against args: a parameter present (and not null) in the arguments needs
// its header, and the header, decoded, must equal the value (numbers
// compared as numbers). A header for a parameter the arguments leave out is
// not looked at.
func checkParamHeaders(r *http.Request, schema []byte, args []byte) *wireError {
	params := headerParams(schema)
	if len(params) == 0 {
		return nil
	}
	var values map[string]any
	if len(args) > 0 && args[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.UseNumber()
		if dec.Decode(&values) != nil {
			return nil // the pipeline reports arguments it cannot read
		}
	}
	for _, p := range params {
		v, ok := lookupPath(values, p.path)
		if !ok || v == nil {
			continue
		}
		raw, present := headerValue(r, p.header)
		if !present {
			return newError(CodeHeaderMismatch, "Header mismatch: the %s header is required when %s is given", p.header, strings.Join(p.path, "."))
		}
		got, valid := decodeHeaderValue(raw)
		if !valid {
			return newError(CodeHeaderMismatch, "Header mismatch: the %s header value is not valid", p.header)
		}
		if !headerMatches(got, v) {
			return newError(CodeHeaderMismatch, "Header mismatch: %s header value does not match the body value of %s", p.header, strings.Join(p.path, "."))
		}
	}
	return nil
}

// lookupPath reads the value at path in args.
func lookupPath(args map[string]any, path []string) (any, bool) {
	var cur any = args
	for _, key := range path {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[key]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// headerMatches compares a decoded header value with the body's value of a
// primitive parameter.
func headerMatches(header string, v any) bool {
	switch v := v.(type) {
	case string:
		return header == v
	case bool:
		if v {
			return header == "true"
		}
		return header == "false"
	case json.Number:
		// x-mcp-header integers are within ±(2^53-1), exact as float64s;
		// parsing as floats also keeps an exponent such as 1e999999999 from
		// costing anything.
		want, err1 := strconv.ParseFloat(v.String(), 64)
		got, err2 := strconv.ParseFloat(header, 64)
		return err1 == nil && err2 == nil && want == got
	}
	return false
}

// decodeHeaderValue reads an Mcp-Name or Mcp-Param-* value: the Base64
// sentinel form "=?base64?...?=" is decoded strictly (padding included),
// anything else is taken literally. A value with characters a header value
// may not hold, or a sentinel that is not valid Base64 of UTF-8, is not
// valid.
func decodeHeaderValue(v string) (string, bool) {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f || c >= 0x80 {
			return "", false
		}
	}
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, true
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v, true
	}
	data, err := base64.StdEncoding.Strict().DecodeString(inner)
	if err != nil {
		return "", false
	}
	return string(data), true
}
