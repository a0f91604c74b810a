package oxp

import (
	"context"
	"encoding/json"
)

// CallContext is what an OXP call carries besides the tool's input: its ids
// and the members of the request's "context" object (authorization tokens,
// secrets, the user's id). The handler reads it with FromContext; it is how
// a tool receives the requirements it declared (toolexec.Requirements).
//
// A CallContext must not be modified once it is in a context: the pipeline
// may read it from several goroutines.
type CallContext struct {
	// CallID is the call's id: the caller's call_id, or the UUID the
	// handler generated when it sent none.
	CallID string
	// TraceID is the caller's trace_id, "" when it sent none.
	TraceID string
	// ToolID is the id of the tool version the call resolved to, such as
	// "Calculator.Add@1.0.0".
	ToolID string
	// UserID is context.user_id, "" when absent.
	UserID string
	// Authorization maps authorization provider ids to the tokens of
	// context.authorization.
	Authorization map[string]string
	// Secrets maps secret ids to the values of context.secrets.
	Secrets map[string]string
	// UserInfo is context.user_info as sent, nil when absent.
	UserInfo json.RawMessage
	// Extra holds any other members of the context object, as sent, so
	// nothing the caller supplied is lost.
	Extra map[string]json.RawMessage
}

// Secret returns the value of the secret id, and whether the call supplied
// it. It is safe on a nil CallContext, so FromContext(ctx).Secret(id) works
// outside OXP calls too.
func (c *CallContext) Secret(id string) (string, bool) {
	if c == nil {
		return "", false
	}
	v, ok := c.Secrets[id]
	return v, ok
}

// Token returns the token of the authorization provider id, and whether the
// call supplied it. It is safe on a nil CallContext.
func (c *CallContext) Token(provider string) (string, bool) {
	if c == nil {
		return "", false
	}
	v, ok := c.Authorization[provider]
	return v, ok
}

type callContextKey struct{}

// NewContext returns a copy of ctx that carries c, for FromContext. The OXP
// handler does this for every call; tests of a tool's handler can do it to
// give the handler what an OXP caller would.
func NewContext(ctx context.Context, c *CallContext) context.Context {
	return context.WithValue(ctx, callContextKey{}, c)
}

// FromContext returns the CallContext of the OXP call being executed, or nil
// when ctx does not belong to one (a call made over another surface, or
// in-process).
func FromContext(ctx context.Context) *CallContext {
	c, _ := ctx.Value(callContextKey{}).(*CallContext)
	return c
}
