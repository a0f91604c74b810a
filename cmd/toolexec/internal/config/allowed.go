package config

import (
	"reflect"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// AllowedEntryIsPattern reports whether an allowedValues entry of a string
// parameter is a regular expression: it holds at least one of the
// characters . ^ $ * + ? ( ) [ ] { } | \ and compiles as RE2 (Go's
// regexp syntax). Any other entry is a literal value. (mcp-toolbox takes
// every entry that compiles as a regular expression, unanchored; toolexec
// anchors it to the whole value, and an entry without those characters
// means the same either way.)
func AllowedEntryIsPattern(entry string) bool {
	if regexp.QuoteMeta(entry) == entry {
		return false
	}
	_, err := regexp.Compile(entry)
	return err == nil
}

// allowedPattern sets prm.AllowedPattern when an allowedValues entry of a
// string parameter is a regular expression, and checks the parameter's
// default against its allowed values.
func (p *parser) allowedPattern(label string, n *yaml.Node, prm *Param) {
	if prm.Type == TypeString {
		var alts []string
		pattern := false
		for _, v := range prm.AllowedValues {
			s, ok := v.(string)
			if !ok {
				continue
			}
			if AllowedEntryIsPattern(s) {
				pattern = true
				alts = append(alts, "(?:"+s+")")
			} else {
				alts = append(alts, regexp.QuoteMeta(s))
			}
		}
		if pattern {
			re, err := regexp.Compile("^(?:" + strings.Join(alts, "|") + ")$")
			if err != nil {
				p.errorf(n, "%s: allowedValues: %v", label, err)
				return
			}
			prm.AllowedPattern = re
		}
	}
	if prm.HasDefault && prm.Default != nil && !prm.Allows(prm.Default) {
		p.errorf(n, "%s: the default %s is not one of allowedValues", label, p.show(toText(prm.Default)))
	}
}

// Allows reports whether v, an argument converted for the parameter (or a
// value of the file), is one of the parameter's allowed values: it matches
// AllowedPattern when there is one, else equals an entry of
// AllowedValues. Every value is allowed when the list is empty.
func (prm *Param) Allows(v any) bool {
	if prm.AllowedPattern != nil {
		s, ok := v.(string)
		return ok && prm.AllowedPattern.MatchString(s)
	}
	if len(prm.AllowedValues) == 0 {
		return true
	}
	for _, a := range prm.AllowedValues {
		if sameValue(a, v) {
			return true
		}
	}
	return false
}

// sameValue compares two values of the JSON model, numbers by value
// whether int64 or float64.
func sameValue(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

// toText is a value as a message shows it.
func toText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := yaml.Marshal(v)
	return strings.TrimSpace(string(b))
}
