package toolexec

import (
	"encoding/json"

	"github.com/toolexec/toolexec/internal/rawjson"
)

// decodeArguments is the decode stage: it turns the raw arguments into the
// map handlers receive (see rawjson.DecodeObject for how numbers arrive:
// float64 where float64 holds them as sent, json.Number otherwise). Empty
// or null is {}; anything else that is not a JSON object fails StageDecode.
func decodeArguments(raw json.RawMessage) (map[string]any, error) {
	args, err := rawjson.DecodeObject(raw)
	if args == nil {
		return nil, &Error{Stage: StageDecode, Code: CodeInvalidArguments, Message: "arguments must be a JSON object", Err: err}
	}
	return args, nil
}
