package params

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// Bounds returns an interceptor that refuses, exactly as validation
// refuses any invalid argument (an *toolexec.Error of StageValidate and
// CodeInvalidArguments with its failures: REST 422, an MCP isError result,
// OXP 422), an integer argument beyond a 64-bit integer's range or a float
// argument beyond a 64-bit float's, which the schema's type allows but no
// driver can bind. It returns nil when ps has no integer or float
// parameter. Its work is linear in the arguments it checks, with no
// allocation unless it refuses.
func Bounds(ps []*config.Param) toolexec.Interceptor {
	var checked []*config.Param
	for _, p := range ps {
		if numeric(p.Type) || p.Type == config.TypeArray && p.Items != nil && numeric(p.Items.Type) {
			checked = append(checked, p)
		}
	}
	if len(checked) == 0 {
		return nil
	}
	return func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, call *toolexec.Call) (*toolexec.CallToolResult, error) {
			var fs []toolexec.ValidationFailure
			for _, p := range checked {
				v, ok := call.Arguments[p.Name]
				if !ok {
					continue
				}
				if p.Type != config.TypeArray {
					if !inRange(p.Type, v) {
						fs = append(fs, failure(p.Type, "/"+pointerToken(p.Name)))
					}
					continue
				}
				items, _ := v.([]any)
				for i, e := range items {
					if !inRange(p.Items.Type, e) {
						fs = append(fs, failure(p.Items.Type, "/"+pointerToken(p.Name)+"/"+strconv.Itoa(i)))
					}
				}
			}
			if fs != nil {
				return nil, invalid(fs)
			}
			return next(ctx, call)
		}
	}
}

func numeric(t string) bool { return t == config.TypeInteger || t == config.TypeFloat }

// inRange reports whether v, an argument of type typ as the library
// decodes it (float64, or json.Number when float64 cannot hold it
// exactly), can be bound as an int64 or a float64. Anything else (nil, a
// value of another type) is left to the schema.
func inRange(typ string, v any) bool {
	switch n := v.(type) {
	case float64:
		return typ != config.TypeInteger || n >= -(1<<63) && n < 1<<63
	case json.Number:
		var err error
		if typ == config.TypeInteger {
			_, err = strconv.ParseInt(string(n), 10, 64)
		} else {
			_, err = strconv.ParseFloat(string(n), 64)
		}
		return err == nil
	}
	return true
}

func failure(typ, path string) toolexec.ValidationFailure {
	msg := "must be an integer from -9223372036854775808 to 9223372036854775807"
	if typ == config.TypeFloat {
		msg = "must be a number within the range of a 64-bit float"
	}
	return toolexec.ValidationFailure{Path: path, Message: msg, Keyword: "maximum"}
}

func invalid(fs []toolexec.ValidationFailure) error {
	var b strings.Builder
	b.WriteString("Invalid arguments: ")
	for i, f := range fs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Path + ": " + f.Message)
	}
	return &toolexec.Error{Stage: toolexec.StageValidate, Code: toolexec.CodeInvalidArguments, Message: b.String(), Failures: fs}
}

// pointerToken escapes a name as a JSON Pointer token.
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
