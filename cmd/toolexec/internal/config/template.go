package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/sqlstmt"
)

// Template is a statement with template parameters ({{.name}} and
// {{array .name}}, mcp-toolbox's forms), split where their values go.
// Nothing else of Go's template language is accepted.
type Template struct {
	// Parts are the statement's text and its template references, in
	// order.
	Parts []TemplatePart
}

// TemplatePart is a piece of a Template: literal SQL text, or a reference
// to a template parameter.
type TemplatePart struct {
	// Text is literal SQL (when Param is -1).
	Text string
	// Param is the index of the template parameter in the tool's
	// TemplateParameters, or -1.
	Param int
	// Array is {{array .name}}: the array's items, separated by ", ".
	Array bool
}

// templateMarker is the bare word a reference stands for when a template
// statement is read (classified, checked) before any value is known.
const templateMarker = "toolexec_template_parameter_"

// parseTemplate splits statement at its template references, each of
// which must name one of ps.
func parseTemplate(statement string, ps []*Param) (*Template, error) {
	index := map[string]int{}
	for i, p := range ps {
		index[p.Name] = i
	}
	t := &Template{}
	rest := statement
	for {
		open := strings.Index(rest, "{{")
		if open < 0 {
			if rest != "" {
				t.Parts = append(t.Parts, TemplatePart{Text: rest, Param: -1})
			}
			return t, nil
		}
		end := strings.Index(rest[open:], "}}")
		if end < 0 {
			return nil, fmt.Errorf("%q is not closed with }}", clip(rest[open:]))
		}
		action := rest[open : open+end+2]
		inner := strings.Fields(rest[open+2 : open+end])
		array := len(inner) == 2 && inner[0] == "array"
		if array {
			inner = inner[1:]
		}
		if len(inner) != 1 || !strings.HasPrefix(inner[0], ".") {
			return nil, fmt.Errorf("%s: only {{.name}} and {{array .name}} are supported in a statement", action)
		}
		i, ok := index[inner[0][1:]]
		if !ok {
			return nil, fmt.Errorf("%s: %q is not a template parameter of the tool", action, inner[0][1:])
		}
		if array != (ps[i].Type == TypeArray) {
			if array {
				return nil, fmt.Errorf("%s: %q is not an array", action, ps[i].Name)
			}
			return nil, fmt.Errorf("%s: %q is an array: write {{array .%s}}", action, ps[i].Name, ps[i].Name)
		}
		if open > 0 {
			t.Parts = append(t.Parts, TemplatePart{Text: rest[:open], Param: -1})
		}
		t.Parts = append(t.Parts, TemplatePart{Param: i, Array: array})
		rest = rest[open+end+2:]
	}
}

// sample is the statement with each reference replaced by a marker word
// (templateMarker and the parameter's index): what the statement is for
// any value, since every value is an identifier or a number.
func (t *Template) sample() string {
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Param < 0 {
			b.WriteString(p.Text)
			continue
		}
		b.WriteString(" " + templateMarker + strconv.Itoa(p.Param) + " ")
	}
	return b.String()
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// checkTemplate parses a sql tool's template and checks its parameters:
// each reference must stand bare in the statement (not in a literal, a
// quoted identifier or a comment), a string parameter (or an array's
// string items) must list allowedValues, and an array's items must be
// strings. It returns the statement to classify, or "" after a problem.
func (p *parser) checkTemplate(what string, line int, d sqlstmt.Dialect, t *Tool) string {
	tpl, err := parseTemplate(t.Statement, t.TemplateParameters)
	if err != nil {
		p.problems = append(p.problems, Problem{File: p.file, Line: line, Message: fmt.Sprintf("%s: templateParameters: %v", what, err)})
		return ""
	}
	sample := tpl.sample()
	ok := true
	for _, part := range tpl.Parts {
		if part.Param >= 0 && !sqlstmt.HasBareWord(d, sample, templateMarker+strconv.Itoa(part.Param)) {
			name := t.TemplateParameters[part.Param].Name
			p.problems = append(p.problems, Problem{File: p.file, Line: line, Message: fmt.Sprintf("%s: {{.%s}} is inside a string literal, a quoted identifier or a comment: write it bare, since toolexec quotes its value as an identifier (for a value, declare a parameter and use a placeholder)", what, name)})
			ok = false
		}
	}
	for _, prm := range t.TemplateParameters {
		if !p.checkTemplateParam(what, d, prm) {
			ok = false
		}
	}
	if !ok {
		return ""
	}
	t.Template = tpl
	return sample
}

// checkTemplateParam checks one template parameter.
func (p *parser) checkTemplateParam(what string, d sqlstmt.Dialect, prm *Param) bool {
	label := what + ": template parameter " + p.show(prm.Name)
	fail := func(format string, args ...any) bool {
		p.problems = append(p.problems, Problem{File: p.file, Line: prm.Line, Message: label + ": " + fmt.Sprintf(format, args...)})
		return false
	}
	target := prm
	switch prm.Type {
	case TypeInteger, TypeFloat, TypeBoolean:
		return true
	case TypeArray:
		if prm.Items == nil || prm.Items.Type != TypeString {
			return fail("the items of an array template parameter must be strings (identifiers)")
		}
		target = prm.Items
	case TypeString:
	default:
		return fail("a template parameter is a string, integer, float, boolean or array of strings")
	}
	if len(target.AllowedValues) == 0 {
		where := "allowedValues"
		if target != prm {
			where = "items: {allowedValues: [...]}"
		}
		return fail("needs %s: its value is spliced into the statement (quoted as an identifier), so it must be one of the names you list (an entry may be a regular expression); for a value rather than a name, declare a parameter and use a placeholder", where)
	}
	for _, e := range []string{prm.Escape, target.Escape} {
		if e == "" {
			continue
		}
		if !identifierQuote(d, e) {
			return fail("escape %s is not an identifier quote of %s: toolexec quotes template values as identifiers (for a value, declare a parameter and use a placeholder)", p.show(e), d)
		}
	}
	return true
}

// identifierQuote reports whether toolbox's escape names a quote the
// dialect reads identifiers in.
func identifierQuote(d sqlstmt.Dialect, escape string) bool {
	switch escape {
	case "double-quotes":
		return d != sqlstmt.MySQL
	case "backticks":
		return d != sqlstmt.PostgreSQL
	case "square-brackets":
		return d == sqlstmt.SQLite
	}
	return false
}
