// Package docblocks reads the fenced code blocks of a Markdown document:
// all of them (All), for make lint's check of the docs' Go code, or those
// a marker comment names (Read), so that tests can check the
// configurations a guide prints against the files and settings they run:
//
//	<!-- file: internal/oidcprovider/config.mjs -->
//	```js
//	...
//	```
//
// A marker is an HTML comment alone on its line, "<!-- KIND: NAME -->",
// right before the opening fence of its block (Markdown renders neither).
package docblocks

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// Block is a fenced code block and the marker that names it.
type Block struct {
	Kind, Name string // the marker's
	Lang       string // the info string of the fence: "go", "sh", ...
	Text       string // the block's lines, each ending in "\n"
	Line       int    // the line of the opening fence, from 1
}

var marker = regexp.MustCompile(`^<!-- ([a-z]+): (\S+) -->$`)

// Read returns the marked blocks of the Markdown file at path. It fails
// when a fence is left open, or a marker is not followed by a fence.
func Read(path string) ([]Block, error) {
	all, err := All(path)
	if err != nil {
		return nil, err
	}
	var out []Block
	for _, b := range all {
		if b.Kind != "" {
			out = append(out, b)
		}
	}
	return out, nil
}

// All returns every fenced block of the Markdown file at path, marked or
// not (Kind and Name are empty then), in order. A fence may be indented,
// as in a list item: the block's lines lose that indentation, and its
// closing fence is a line of at least as many backticks. All fails when
// a fence is left open, or a marker is not followed by a fence.
func All(path string) ([]Block, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	var out []Block
	var kind, name string // of a marker on the line before
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\n")
		if m := marker.FindStringSubmatch(line); m != nil {
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
				return nil, fmt.Errorf("%s:%d: the marker %q is not followed by a fenced block", path, i+1, line)
			}
			kind, name = m[1], m[2]
			continue
		}
		body := strings.TrimLeft(line, " ")
		indent := len(line) - len(body)
		if !strings.HasPrefix(body, "```") {
			kind, name = "", ""
			continue
		}
		fence := body[:len(body)-len(strings.TrimLeft(body, "`"))]
		start := i
		var text strings.Builder
		for i++; i < len(lines) && !closes(lines[i], fence); i++ {
			l := lines[i]
			text.WriteString(l[min(indent, len(l)-len(strings.TrimLeft(l, " "))):])
		}
		if i >= len(lines) {
			return nil, fmt.Errorf("%s:%d: a fenced block is never closed", path, start+1)
		}
		out = append(out, Block{Kind: kind, Name: name, Lang: strings.TrimSpace(body[len(fence):]), Text: text.String(), Line: start + 1})
		kind, name = "", ""
	}
	return out, nil
}

// closes reports whether line closes a block opened by fence: backticks
// alone, at least as many.
func closes(line, fence string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, fence) && strings.Trim(t, "`") == ""
}

// Find returns the blocks of kind, by name.
func Find(blocks []Block, kind string) map[string]Block {
	out := map[string]Block{}
	for _, b := range blocks {
		if b.Kind == kind {
			out[b.Name] = b
		}
	}
	return out
}

// Literal sets *dst (a pointer to a struct) from src, Go source holding
// one composite literal of that struct's type (pkg.Type{...}, a trailing
// comment allowed): its fields may be strings, booleans, integers, slices
// of strings and pointers to such structs. Any other expression is an
// error, so a block that does not say what it seems to cannot pass.
func Literal(src string, dst any) error {
	expr, err := parser.ParseExpr(strings.TrimSpace(stripComments(src)))
	if err != nil {
		return fmt.Errorf("docblocks: %w", err)
	}
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return errors.New("docblocks: dst must point to a struct")
	}
	return assign(expr, v.Elem())
}

// stripComments removes // comments outside string literals.
func stripComments(src string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(src, "\n") {
		inString := false
		for i := 0; i < len(line); i++ {
			c := line[i]
			if c == '"' && (i == 0 || line[i-1] != '\\') {
				inString = !inString
			}
			if !inString && c == '/' && i+1 < len(line) && line[i+1] == '/' {
				line = strings.TrimRight(line[:i], " \t") + "\n"
				break
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

func assign(expr ast.Expr, v reflect.Value) error {
	switch e := expr.(type) {
	case *ast.UnaryExpr:
		if e.Op != token.AND || v.Kind() != reflect.Pointer {
			return fmt.Errorf("docblocks: unexpected %T", expr)
		}
		p := reflect.New(v.Type().Elem())
		if err := assign(e.X, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case *ast.CompositeLit:
		switch v.Kind() {
		case reflect.Struct:
			for _, elt := range e.Elts {
				kv, ok := elt.(*ast.KeyValueExpr)
				if !ok {
					return errors.New("docblocks: struct fields must be named")
				}
				name := kv.Key.(*ast.Ident).Name
				f := v.FieldByName(name)
				if !f.IsValid() {
					return fmt.Errorf("docblocks: no field %s", name)
				}
				if err := assign(kv.Value, f); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
			}
			return nil
		case reflect.Slice:
			s := reflect.MakeSlice(v.Type(), len(e.Elts), len(e.Elts))
			for i, elt := range e.Elts {
				if err := assign(elt, s.Index(i)); err != nil {
					return err
				}
			}
			v.Set(s)
			return nil
		}
	case *ast.BasicLit:
		switch {
		case e.Kind == token.STRING && v.Kind() == reflect.String:
			s, err := strconv.Unquote(e.Value)
			if err != nil {
				return err
			}
			v.SetString(s)
			return nil
		case e.Kind == token.INT && v.CanInt():
			n, err := strconv.ParseInt(e.Value, 0, 64)
			if err != nil {
				return err
			}
			v.SetInt(n)
			return nil
		}
	case *ast.Ident:
		if v.Kind() == reflect.Bool && (e.Name == "true" || e.Name == "false") {
			v.SetBool(e.Name == "true")
			return nil
		}
	}
	return fmt.Errorf("docblocks: cannot set a %s from %T", v.Type(), expr)
}
