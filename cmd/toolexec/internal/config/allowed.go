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
		re, err := entriesPattern(prm.AllowedValues)
		if err != nil {
			p.errorf(n, "%s: allowedValues: %v", label, err)
			return
		}
		prm.AllowedPattern = re
	}
	if prm.HasDefault && prm.Default != nil && !prm.Allows(prm.Default) {
		p.errorf(n, "%s: the default %s is not one of allowedValues", label, p.show(toText(prm.Default)))
	}
}

// excludedValues reads a parameter's excludedValues (toolbox's field): the
// values it refuses, with regular-expression entries as in allowedValues.
func (p *parser) excludedValues(label string, n *yaml.Node, prm *Param) {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "%s: excludedValues must be a list", label)
		return
	}
	for _, c := range n.Content {
		v, err := p.value(c, prm)
		if err != nil {
			p.errorf(c, "%s: excludedValues: %v", label, err)
			continue
		}
		prm.ExcludedValues = append(prm.ExcludedValues, v)
	}
	if prm.Type == TypeString {
		re, err := entriesPattern(prm.ExcludedValues)
		if err != nil {
			p.errorf(n, "%s: excludedValues: %v", label, err)
			return
		}
		prm.ExcludedPattern = re
	}
	if prm.HasDefault && prm.Default != nil && !prm.Allows(prm.Default) {
		p.errorf(n, "%s: the default %s is one of excludedValues", label, p.show(toText(prm.Default)))
	}
}

// entriesPattern returns the pattern that matches a value equal to one of
// the literal entries or matching one of the regular-expression entries
// (AllowedEntryIsPattern), each anchored to the whole value; nil when no
// entry is a regular expression.
func entriesPattern(values []any) (*regexp.Regexp, error) {
	var alts []string
	pattern := false
	for _, v := range values {
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
	if !pattern {
		return nil, nil
	}
	return regexp.Compile("^(?:" + strings.Join(alts, "|") + ")$")
}

// Allows reports whether v, an argument converted for the parameter (or a
// value of the file), is one of the parameter's allowed values and none of
// its excluded ones: it matches AllowedPattern when there is one, else
// equals an entry of AllowedValues (every value does when the list is
// empty); and it neither matches ExcludedPattern nor equals an entry of
// ExcludedValues.
func (prm *Param) Allows(v any) bool {
	if prm.excluded(v) {
		return false
	}
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

func (prm *Param) excluded(v any) bool {
	if prm.ExcludedPattern != nil {
		s, ok := v.(string)
		return ok && prm.ExcludedPattern.MatchString(s)
	}
	for _, e := range prm.ExcludedValues {
		if sameValue(e, v) {
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
