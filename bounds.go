package toolexec

import (
	"github.com/toolexec/toolexec/internal/rawjson"
	"github.com/toolexec/toolexec/internal/schema"
)

// The bounds that keep validation's work and answer linear in the size of
// the input, whatever a caller sends (docs/security.md).
const (
	// MaxNumberDigits is the most digits a JSON number may have before its
	// exponent ("1234.5e6" has 5) for the validator to check it. The
	// validator does exact rational arithmetic, whose cost grows faster
	// than the number's length; within this bound and MaxNumberExponent
	// one number costs at most a few microseconds.
	MaxNumberDigits = rawjson.MaxNumberDigits
	// MaxNumberExponent bounds a JSON number's exponent, in magnitude,
	// for the validator to check it: 1e400 and 1e-400 are checked, 1e401
	// and 1e-999999 are not. A float64 spans about 1e-324 to 1e308, so
	// every number a handler can hold as one is within it.
	MaxNumberExponent = rawjson.MaxNumberExponent
	// MaxValidationFailures is the most failures one validation lists;
	// the rest are counted (ValidateResult.Omitted, Error.Omitted).
	MaxValidationFailures = schema.MaxFailures
	// MaxFailureMessageBytes is the longest message of one failure; a
	// longer one (a pattern failure quoting a long value) is cut and ends
	// with "…".
	MaxFailureMessageBytes = schema.MaxFailureMessageBytes
	// MaxFailureBytes bounds the bytes of the failures one validation lists,
	// paths and messages together: a failure that would go over it is
	// omitted, with every failure after it.
	MaxFailureBytes = schema.MaxFailureBytes
)
