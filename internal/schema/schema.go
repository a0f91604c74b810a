package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolexec/toolexec/internal/rawjson"
)

// schemaLocation is the URL a tool's schema is compiled under. Each schema
// gets its own compiler, so one fixed location serves them all; a relative
// $ref resolves against it and is then refused by noLoader.
const schemaLocation = "toolexec:///schema.json"

// Compile compiles one JSON Schema document: 2020-12 unless its
// $schema names another draft (draft-07, say), formats asserted, and no
// $ref ever fetched from outside the document (no file, no network). The
// error says, in one line, why the schema cannot be used; the library's
// own panics are turned into errors too, so no schema can crash a call.
func Compile(raw []byte) (sch *jsonschema.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			sch, err = nil, fmt.Errorf("the schema compiler failed: %v", p)
		}
	}()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaLocation, doc); err != nil {
		return nil, errors.New(OneLine(err.Error()))
	}
	sch, err = c.Compile(schemaLocation)
	if err != nil {
		return nil, compileError(err)
	}
	return sch, nil
}

// noLoader refuses every external reference: a tool's schema must be
// self-contained, and validating a call must never read a file or the
// network.
type noLoader struct{}

func (noLoader) Load(string) (any, error) {
	return nil, errors.New("external references are not loaded: a tool's schema must be self-contained")
}

// compileError reduces a compiler error to one line. A schema that breaks
// its meta-schema is described by the first rule it breaks.
func compileError(err error) error {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		if fs, omitted := validationFailures(sve.Err); len(fs) > 0 {
			f := fs[0]
			at := f.Path
			if at == "" {
				at = "the root"
			}
			msg := fmt.Sprintf("at %s: %s", at, f.Message)
			if more := len(fs) - 1 + omitted; more > 0 {
				msg += fmt.Sprintf(" (and %d more)", more)
			}
			return errors.New(msg)
		}
	}
	return errors.New(OneLine(err.Error()))
}

// Validate checks v, a value in the validator's JSON model (see
// JSONValue), against sch and lists its failures, bounded as boundFailures
// says, with the count of those omitted; nil means valid. A number the
// validator cannot check cheaply (see MaxNumberDigits) fails with keyword
// "format" and the schema is not checked at all: the answer lists those
// numbers only.
//
// The memory a validation holds is bounded whatever v holds (beyond v
// itself): an instance of more than FullValidationNodes values is walked
// together with the schema, keeping only the failures listed, and the
// failures and count are those the library's full error tree gives, but
// for a large value failing a combinator (see tooLargeMessage).
func Validate(sch *jsonschema.Schema, v any) (failures []Failure, omitted int) {
	if fs, n := numberFailures(v); len(fs) > 0 {
		return boundFailures(fs, n)
	}
	defer func() {
		if p := recover(); p != nil {
			failures, omitted = []Failure{{Message: fmt.Sprintf("the validator failed: %v", p), Keyword: "schema"}}, 0
		}
	}()
	return boundFailures(validateBounded(sch, v, FullValidationNodes))
}

// failureLeaf is one failure of the validator's error tree before it is
// worded: the leaf, and for a leaf that names several properties (required,
// additionalProperties) the one property it stands for.
type failureLeaf struct {
	at      []string // the instance location's tokens
	prop    string   // with hasProp, one more token
	hasProp bool
	keyword string
	e       *jsonschema.ValidationError
}

// token returns the leaf's i-th reference token, and false past the last.
func (l *failureLeaf) token(i int) (string, bool) {
	if i < len(l.at) {
		return l.at[i], true
	}
	if l.hasProp && i == len(l.at) {
		return l.prop, true
	}
	return "", false
}

// path is the leaf's JSON Pointer.
func (l *failureLeaf) path() string {
	p := jsonPointer(l.at)
	if l.hasProp {
		p += "/" + escapePointer(l.prop)
	}
	return p
}

// compareLeaves orders leaves by location, token by token, then keyword,
// without building their pointers.
func compareLeaves(a, b *failureLeaf) int {
	for i := 0; ; i++ {
		ta, oka := a.token(i)
		tb, okb := b.token(i)
		switch {
		case !oka && !okb:
			return strings.Compare(a.keyword, b.keyword)
		case !oka:
			return -1
		case !okb:
			return 1
		}
		if c := compareTokens(ta, tb); c != 0 {
			return c
		}
	}
}

// compareTokens orders two reference tokens, array indexes by their value
// ("2" before "10"), so that the failures listed are the first items'. A
// token of digits only comes before any other (as in byte order, but for
// names beginning with a byte below '0' or with digits): otherwise the
// order would not be transitive ("22" < "213" < "21a" < "22"), and which
// failures are listed would depend on the sort.
func compareTokens(a, b string) int {
	ia, ib := isIndex(a), isIndex(b)
	switch {
	case ia && ib && len(a) != len(b):
		return len(a) - len(b)
	case ia && !ib:
		return -1
	case !ia && ib:
		return 1
	}
	return strings.Compare(a, b)
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// validationFailures flattens the validator's error tree into its leaves,
// one Failure each, sorted by path. A missing required property is
// reported at the property's own pointer ("/location"), as is a property
// that additionalProperties forbids, so every failure names the exact field.
// Only the first MaxFailures (by path) are worded; the count of
// the others is returned with them.
func validationFailures(err error) ([]Failure, int) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Failure{{Message: OneLine(err.Error()), Keyword: "schema"}}, 0
	}
	leaves := appendLeaves(nil, ve)
	// Sort indexes, not the leaves: cheaper to swap, and the index breaks
	// ties so the order is the same on every run.
	order := make([]int32, len(leaves))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := compareLeaves(&leaves[a], &leaves[b]); c != 0 {
			return c
		}
		return int(a - b)
	})
	omitted := 0
	if len(order) > MaxFailures {
		omitted = len(order) - MaxFailures
		order = order[:MaxFailures]
	}
	ls := make([]*failureLeaf, len(order))
	for j, i := range order {
		ls[j] = &leaves[i]
	}
	return wordLeaves(ls), omitted
}

// appendLeaves appends the leaves of the error tree e to dst, a leaf that
// names several properties once for each.
func appendLeaves(dst []failureLeaf, e *jsonschema.ValidationError) []failureLeaf {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			dst = appendLeaves(dst, c)
		}
		return dst
	}
	var names []string
	kw := ""
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		names, kw = k.Missing, "required"
	case *kind.DependentRequired:
		names, kw = k.Missing, "dependentRequired"
	case *kind.AdditionalProperties:
		names, kw = k.Properties, "additionalProperties"
	default:
		return append(dst, failureLeaf{at: e.InstanceLocation, keyword: keywordOf(e.ErrorKind), e: e})
	}
	for _, name := range names {
		dst = append(dst, failureLeaf{at: e.InstanceLocation, prop: name, hasProp: true, keyword: kw, e: e})
	}
	return dst
}

// wordLeaves words leaves, given in failure order, as Failures sorted by
// path, keyword and message, duplicates removed.
func wordLeaves(leaves []*failureLeaf) []Failure {
	p := message.NewPrinter(language.English)
	out := make([]Failure, 0, len(leaves))
	for _, l := range leaves {
		var msg string
		switch k := l.e.ErrorKind.(type) {
		case *kind.Required:
			msg = (&kind.Required{Missing: []string{l.prop}}).LocalizedString(p)
		case *kind.DependentRequired:
			msg = (&kind.DependentRequired{Prop: k.Prop, Missing: []string{l.prop}}).LocalizedString(p)
		case *kind.AdditionalProperties:
			msg = (&kind.AdditionalProperties{Properties: []string{l.prop}}).LocalizedString(p)
		default:
			msg = l.e.ErrorKind.LocalizedString(p)
		}
		out = append(out, Failure{Path: l.path(), Message: msg, Keyword: l.keyword})
	}
	slices.SortStableFunc(out, func(a, b Failure) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(a.Keyword, b.Keyword); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(out)
}

// keywordOf names the schema keyword an error kind stands for.
func keywordOf(k jsonschema.ErrorKind) string {
	if kp := k.KeywordPath(); len(kp) > 0 {
		return kp[0]
	}
	switch k.(type) {
	case *kind.FalseSchema:
		return "false"
	case *kind.InvalidJsonValue:
		return "type"
	}
	return "schema"
}

// jsonPointer joins reference tokens into a JSON Pointer (RFC 6901); no
// tokens is the root, "".
func jsonPointer(tokens []string) string {
	var b strings.Builder
	n := 0
	for _, t := range tokens {
		n += 1 + len(t)
	}
	b.Grow(n) // escapes aside, the pointer's length
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

// escapePointer escapes one reference token: '~' as "~0", '/' as "~1".
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// OneLine joins the lines of s with spaces.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// JSONValue turns v into the validator's JSON model: map[string]any, []any,
// string, bool, nil and numbers. Arguments the pipeline decoded are already
// in it (numbers are float64, which the validator reads exactly, so 3.0 is
// an integer and 3.5 is not) and pass through untouched. A json.RawMessage
// is decoded as arguments are, every number kept exact; anything else (an
// interceptor's []string, a struct) goes through encoding/json first.
func JSONValue(v any) (any, error) {
	switch v := v.(type) {
	case json.RawMessage:
		return rawjson.DecodeValue(v)
	}
	if isJSONModel(v) {
		return v, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return rawjson.DecodeValue(data)
}

// isJSONModel reports whether v is built only of the types encoding/json
// decodes into any (plus json.Number).
func isJSONModel(v any) bool {
	switch v := v.(type) {
	case nil, bool, string, json.Number:
		return true
	case float64:
		return !isNaNOrInf(v)
	case map[string]any:
		for _, e := range v {
			if !isJSONModel(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !isJSONModel(e) {
				return false
			}
		}
		return true
	}
	return false
}

func isNaNOrInf(f float64) bool { return f != f || f-f != 0 }

// DecodeJSON decodes one JSON value into the validator's JSON model,
// numbers kept exact (as json.Number).
func DecodeJSON(data []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}
