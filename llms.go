package toolexec

import (
	"strings"
	"unicode/utf8"
)

// llms.txt (https://llmstxt.org) is a Markdown file that tells a language
// model what a site offers: a title, a one-paragraph summary, then lists of
// links. The REST handler's says how to call its tools and lists those the
// caller may see, each linked to its description (GET /tools/{name}, which
// holds its input schema). Links are relative to llms.txt itself, so they
// hold under any mount point; the base URL is written once, near the top.

// maxLLMSDescription bounds the part of a tool's description llms.txt
// shows: the first paragraph, cut to this many bytes.
const maxLLMSDescription = 300

// llmsHead is llms.txt up to where the base URL goes.
func (s *docShape) llmsHead() []byte {
	summary := s.cfg.Description
	if summary == "" {
		summary = "Tools you call over HTTP: POST a tool's arguments as a JSON object, and the answer is an MCP CallToolResult."
	}
	var b strings.Builder
	b.WriteString("# " + oneLine(s.cfg.Title) + "\n\n> " + oneLine(summary) + "\n\nBase URL: ")
	return []byte(b.String())
}

// llmsBody is llms.txt after the base URL, for the tools docs.
func (s *docShape) llmsBody(docs []*toolDoc) []byte {
	var b strings.Builder
	b.WriteString("\n\n## Calling a tool\n\n")
	b.WriteString("- `POST /tools/{name}/call` under the base URL runs a tool: the body is its arguments, a JSON object (`Content-Type: application/json`).\n")
	switch s.scheme {
	case bearerScheme:
		b.WriteString("- Calls need `Authorization: Bearer <token>`.\n")
	case oauthScheme:
		b.WriteString("- Calls need an OAuth access token for this server: `Authorization: Bearer <token>`.\n")
	}
	b.WriteString("- `200`: the result, an MCP CallToolResult: `{\"content\":[{\"type\":\"text\",\"text\":\"...\"}],\"isError\":false}`, " +
		"with `structuredContent` when the tool returns JSON.\n")
	b.WriteString("- `500`: the tool failed, and `content` says why (`\"isError\":true`). `422`: the arguments break the tool's input schema; " +
		"`structuredContent.errors` lists each failure. `404`: no such tool. `429` and `503`: try again after `Retry-After` seconds.\n")
	b.WriteString("- `GET /tools/{name}` describes a tool with its input schema; `POST /tools/{name}/validate` checks arguments without running anything.\n")
	b.WriteString("- The whole API: [openapi.json](openapi.json) (OpenAPI 3.1; also [openapi.yaml](openapi.yaml)).\n\n## Tools\n\n")
	size := b.Len()
	for _, d := range docs {
		size += len(d.llms)
	}
	out := make([]byte, 0, size)
	out = append(out, b.String()...)
	for _, d := range docs {
		out = append(out, d.llms...)
	}
	return out
}

// llmsLine is t's entry in llms.txt: its name linked to its description,
// and the first paragraph of what it does.
func llmsLine(t *Tool) []byte {
	var b strings.Builder
	b.WriteString("- [")
	for _, r := range t.Name {
		if strings.ContainsRune(`\[]`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteString("](tools/" + toolPathSegment(t.Name) + ")")
	desc := t.Description
	if i := strings.Index(desc, "\n\n"); i >= 0 {
		desc = desc[:i]
	}
	if desc = oneLine(desc); desc != "" {
		if len(desc) > maxLLMSDescription {
			cut := maxLLMSDescription
			for cut > 0 && !utf8.RuneStart(desc[cut]) {
				cut--
			}
			desc = strings.TrimSpace(desc[:cut]) + "…"
		}
		b.WriteString(": " + desc)
	}
	b.WriteByte('\n')
	return []byte(b.String())
}

// oneLine collapses every run of white space in s to one space, so that
// text from a tool or the host cannot start a heading or a list of its own.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
