package config

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	goccy "github.com/goccy/go-yaml"
	goccyparser "github.com/goccy/go-yaml/parser"
)

// yamlLine reads the line of a go.yaml.in/yaml/v3 syntax error
// ("yaml: line 3: ...").
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxProblem turns err, the syntax error the YAML decoder reported for
// data, into a Problem with a line and a column. The decoder reports the
// line where the enclosing construct starts, and no column; the file is
// parsed again by github.com/goccy/go-yaml (mcp-toolbox's own parser),
// which reports where the offending token is, and its position and words
// are used when it fails too. When it does not (the two parsers disagree
// on a corner of YAML), the decoder's line and message are kept.
func syntaxProblem(file string, data []byte, err error) Problem {
	var se *goccy.SyntaxError
	if _, perr := goccyparser.ParseBytes(data, 0); errors.As(perr, &se) && se.Token != nil && se.Token.Position != nil {
		return Problem{File: file, Line: se.Token.Position.Line, Column: se.Token.Position.Column, Message: se.Message}
	}
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return Problem{File: file, Line: line, Message: m[2]}
	}
	return Problem{File: file, Message: strings.TrimPrefix(msg, "yaml: ")}
}
