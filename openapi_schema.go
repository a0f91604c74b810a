package toolexec

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"

	"github.com/toolexec/toolexec/internal/jsontree"
)

// A tool's schemas go into the OpenAPI document as components
// (#/components/schemas/NAME), where a reference such as "#/$defs/node"
// would resolve against the document's root instead of the schema's. So
// each schema is rewritten for its place: every reference to the schema
// itself ("#", "#/...", "#anchor", or the URI of one of its own $id
// resources) points into the component, and $id and $anchor, which would
// make references resolve elsewhere or clash with another tool's anchors,
// are dropped. References to anything outside the schema are left as the
// host wrote them.

// componentRef is the reference to the component schema named name.
func componentRef(name string) string { return "#/components/schemas/" + name }

// rewriteSchema parses a tool's schema and rewrites it for the component
// named name (see above).
func rewriteSchema(raw []byte, name string) (*jsontree.Node, error) {
	root, err := jsontree.Parse(raw)
	if err != nil {
		return nil, err
	}
	// First the targets: each $id's resource and each anchor, by the
	// pointer of the schema that declares it.
	ids := map[string]string{}
	anchors := map[string]string{} // resource pointer + "#" + anchor
	walkSchemas(root, "", "", func(n *jsontree.Node, ptr, resource string) {
		if id, ok := n.Get("$id"); ok && id.Kind == jsontree.String {
			ids[strings.TrimSuffix(id.Text, "#")] = ptr
		}
		if a, ok := n.Get("$anchor"); ok && a.Kind == jsontree.String {
			anchors[resource+"#"+a.Text] = ptr
		}
	})
	base := componentRef(name)
	walkSchemas(root, "", "", func(n *jsontree.Node, _, resource string) {
		if ref, ok := n.Get("$ref"); ok && ref.Kind == jsontree.String {
			if target, ok := localTarget(ref.Text, resource, ids, anchors); ok {
				ref.Text = base + target
			}
		}
	})
	walkSchemas(root, "", "", func(n *jsontree.Node, _, _ string) {
		n.Delete("$id")
		n.Delete("$anchor")
	})
	return root, nil
}

// localTarget returns the pointer (as a URI fragment) within the schema
// that ref names, when it names a place in the schema itself.
func localTarget(ref, resource string, ids, anchors map[string]string) (string, bool) {
	uri, frag, _ := strings.Cut(ref, "#")
	if uri != "" {
		r, ok := ids[uri]
		if !ok {
			return "", false // outside the schema
		}
		resource = r
	}
	switch {
	case frag == "":
		return resource, true
	case frag[0] == '/':
		return resource + frag, true
	}
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped
	}
	p, ok := anchors[resource+"#"+frag]
	return p, ok
}

// walkSchemas calls visit on every schema object in n, n included, with
// its pointer from the root (escaped for a URI fragment) and the pointer of
// the resource it belongs to (the nearest schema with an $id, else the
// root). Only keywords whose values are schemas are walked, so a "$ref"
// that is a property's name, or part of an enum, const or default value,
// is never taken for a reference.
func walkSchemas(n *jsontree.Node, ptr, resource string, visit func(n *jsontree.Node, ptr, resource string)) {
	if n.Kind != jsontree.Object {
		return // a boolean schema, or not a schema
	}
	if id, ok := n.Get("$id"); ok && id.Kind == jsontree.String {
		resource = ptr
	}
	visit(n, ptr, resource)
	for i, k := range n.Keys {
		v := n.Values[i]
		at := func() string { return ptr + "/" + pointerToken(k) }
		switch k {
		case "additionalProperties", "contains", "propertyNames", "if", "then", "else", "not",
			"unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema":
			walkSchemas(v, at(), resource, visit)
		case "items":
			if v.Kind == jsontree.Array {
				walkEach(v, at(), resource, visit)
			} else {
				walkSchemas(v, at(), resource, visit)
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			if v.Kind == jsontree.Array {
				walkEach(v, at(), resource, visit)
			}
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			if v.Kind == jsontree.Object {
				p := at()
				for j, name := range v.Keys {
					walkSchemas(v.Values[j], p+"/"+pointerToken(name), resource, visit)
				}
			}
		}
	}
}

func walkEach(arr *jsontree.Node, ptr, resource string, visit func(n *jsontree.Node, ptr, resource string)) {
	for i, e := range arr.Values {
		walkSchemas(e, ptr+"/"+strconv.Itoa(i), resource, visit)
	}
}

// pointerToken escapes a JSON Pointer reference token for a URI fragment:
// "~" as "~0", "/" as "~1", then percent-encoding what a fragment cannot
// hold as it is.
func pointerToken(s string) string {
	if strings.ContainsAny(s, "~/") {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
	}
	return url.PathEscape(s)
}

// declaresNothing reports whether an input schema names nothing a caller
// could send: no properties and no way to constrain any. Such a tool's call
// operation has no request body, since some clients that turn operations
// into tools (Open WebUI) refuse to call an operation with a request body
// and no arguments; its body is read as {} either way.
func declaresNothing(schema *jsontree.Node) bool {
	if schema.Kind == jsontree.Bool {
		return true
	}
	if schema.Kind != jsontree.Object {
		return false
	}
	for i, k := range schema.Keys {
		v := schema.Values[i]
		switch k {
		case "$schema", "$id", "$comment", "type", "title", "description":
		case "properties", "required":
			if len(v.Values) > 0 {
				return false
			}
		case "additionalProperties":
			if v.Kind != jsontree.Bool {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// operationID is the operationId of tool name's call: the name itself
// when it is 1 to 64 characters of A-Z a-z 0-9 _ - (what models'
// function-calling APIs accept, and what clients that turn operations into
// tools use as the tool's name), otherwise a stable id made from it: its
// characters outside that set replaced by '_', cut to 55 bytes, then '_'
// and 8 hex digits of its SHA-256. The real name is in the operation's
// x-toolexec-name.
func operationID(name string) string {
	if plainOperationID(name) {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		if b.Len() >= 55 {
			break
		}
		if r < 0x80 && isIDByte(byte(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(name))
	return b.String() + "_" + hex.EncodeToString(sum[:4])
}

func plainOperationID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIDByte(s[i]) {
			return false
		}
	}
	return true
}

func isIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// toolPathSegment is tool name's part of its REST paths, as a client must
// send it: each '/'-separated part percent-encoded, joined by plain '/'
// when the REST handler reads the name back from that (see
// docs/rest-api.md, "Tool names in paths"), else by "%2F": when the name
// ends in /call or /validate (which would be read as the action), or has
// an empty, "." or ".." part (which clients and proxies rewrite).
func toolPathSegment(name string) string {
	parts := strings.Split(name, "/")
	sep := "/"
	for i, p := range parts {
		switch {
		case p == "" && len(parts) > 1, p == "." || p == "..",
			i == len(parts)-1 && len(parts) > 1 && (p == "call" || p == "validate"):
			sep = "%2F"
		}
		switch p {
		case ".", "..":
			parts[i] = strings.Repeat("%2E", len(p))
		default:
			parts[i] = url.PathEscape(p)
		}
	}
	return strings.Join(parts, sep)
}
