package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/caller"
	"github.com/toolexec/toolexec/internal/jsonwalk"
)

// mrtrCall is the input state of one tools/call on 2026-07-28 (multi
// round-trip requests): the answers the client has given so far, from the
// retried request's inputResponses and from the requestState the server
// signed in an earlier round, and the questions the handler asked this time
// that have no answer yet.
//
// The handler runs again from the start on every round: RequestInput
// returns the answers it finds, or records what is missing and fails with
// toolexec.ErrInputRequired. The call is then answered with an
// input-required result whose requestState carries, signed, every answer
// the handler used, so that the next round, on any replica sharing the key,
// has them all.
type mrtrCall struct {
	answers map[string]json.RawMessage
	// stated: the request carried a requestState that verified; its
	// answers are in answers, and statePrincipal is whom it was signed for.
	stated         bool
	statePrincipal string

	mu    sync.Mutex
	used  map[string]json.RawMessage
	asked []toolexec.InputRequest
	// principal is the caller as the call's context names it (see
	// callerPrincipal), set by the first request; wrongCaller: a
	// requestState signed for another caller was presented.
	principal   string
	wrongCaller bool
}

// errWrongCaller is what RequestInput fails with when the request's
// requestState was signed for another caller: none of its answers reach
// the handler, and the call is answered -32602.
var errWrongCaller = &toolexec.InputError{Code: CodeInvalidParams, Message: "requestState is not for this caller"}

// request answers reqs from the answers given, or records the missing ones.
// ctx is the call's, as the handler passed it: after the auth hook, so it
// names the caller the requestState must have been signed for.
func (c *mrtrCall) request(ctx context.Context, reqs []toolexec.InputRequest) ([]toolexec.InputResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.principal = callerPrincipal(ctx)
	if c.stated && c.statePrincipal != c.principal {
		c.wrongCaller = true
		return nil, errWrongCaller
	}
	out := make([]toolexec.InputResponse, len(reqs))
	missing := false
	for i := range reqs {
		if raw, ok := c.answers[reqs[i].Key]; ok {
			if resp, err := decodeAnswer(reqs[i].Kind(), raw); err == nil {
				out[i] = resp
				if c.used == nil {
					c.used = make(map[string]json.RawMessage)
				}
				c.used[reqs[i].Key] = raw
				continue
			}
		}
		// Not answered, or answered with something unreadable: ask again,
		// as MRTR asks of a server missing information.
		c.asked = append(c.asked, reqs[i])
		missing = true
	}
	if missing {
		return nil, toolexec.ErrInputRequired
	}
	return out, nil
}

// pending returns the questions recorded, the answers used, and the caller
// they were asked of.
func (c *mrtrCall) pending() ([]toolexec.InputRequest, map[string]json.RawMessage, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked, c.used, c.principal
}

// replayed reports whether the request presented another caller's
// requestState.
func (c *mrtrCall) replayed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wrongCaller
}

// inputRequiredResult is MCP 2026-07-28's InputRequiredResult.
type inputRequiredResult struct {
	ResultType    string                   `json:"resultType"`
	InputRequests map[string]inputRequestW `json:"inputRequests,omitempty"`
	RequestState  string                   `json:"requestState,omitempty"`
}

type inputRequestW struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

// requestState is the payload the server signs: what the call was (tool,
// digest of its arguments, digest of the caller: see callerPrincipal) and
// the answers so far, valid until Expires.
type requestState struct {
	Tool      string                     `json:"t"`
	Args      string                     `json:"a"`
	Principal string                     `json:"p,omitempty"`
	Expires   int64                      `json:"e"`
	Answers   map[string]json.RawMessage `json:"r,omitempty"`
}

// openMRTR reads the retried request's inputs into c: the requestState,
// which must verify, and the inputResponses, which must be an object of
// objects.
//
// Whom the state was signed for is checked later, when the handler asks for
// input (request): only the call's context, after the auth hook, names the
// caller.
func (h *handler) openMRTR(c *mrtrCall, name string, args json.RawMessage, meta *callMeta) *wireError {
	if meta.requestState != "" {
		st, ok := h.verifyState(meta.requestState)
		if !ok || st.Tool != name || st.Args != argsDigest(args) || time.Now().Unix() > st.Expires {
			return newError(CodeInvalidParams, "Invalid params: requestState is invalid, expired, or not for this request")
		}
		c.answers, c.stated, c.statePrincipal = st.Answers, true, st.Principal
	}
	if meta.inputResponses != nil {
		if !isObject(meta.inputResponses) {
			return newError(CodeInvalidParams, "Invalid params: inputResponses must be an object")
		}
		for it := jsonwalk.Members(meta.inputResponses); it.Next(); {
			var key string
			if err := json.Unmarshal(it.Key, &key); err != nil {
				continue
			}
			if !isObject(it.Val) {
				return newError(CodeInvalidParams, "Invalid params: inputResponses[%q] must be an object", key)
			}
			if c.answers == nil {
				c.answers = make(map[string]json.RawMessage)
			}
			c.answers[key] = it.Val
		}
	}
	return nil
}

// inputRequired builds the input-required result of a call whose handler
// asked for input it did not have.
func (h *handler) inputRequired(name string, args json.RawMessage, c *mrtrCall) (*inputRequiredResult, error) {
	asked, used, principal := c.pending()
	res := &inputRequiredResult{ResultType: "input_required", InputRequests: make(map[string]inputRequestW, len(asked))}
	for i := range asked {
		method, params := inputWire(&asked[i])
		res.InputRequests[asked[i].Key] = inputRequestW{Method: method, Params: params}
	}
	state, err := h.signState(requestState{
		Tool: name, Args: argsDigest(args), Principal: principal,
		Expires: time.Now().Add(h.inputTimeout).Unix(), Answers: used,
	})
	if err != nil {
		return nil, err
	}
	res.RequestState = state
	return res, nil
}

// signState encodes st as KEYID "." base64url(JSON) "." base64url(HMAC-SHA256),
// signed with the keyring's current key (no KEYID and its dot with a key
// fixed by WithInputStateKey).
func (h *handler) signState(st requestState) (string, error) {
	payload, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	kid, sum := h.keys.sign(payload)
	enc := base64.RawURLEncoding
	out := enc.EncodeToString(payload) + "." + enc.EncodeToString(sum)
	if kid != "" {
		out = kid + "." + out
	}
	return out, nil
}

// verifyState checks s's signature and decodes it.
func (h *handler) verifyState(s string) (requestState, bool) {
	var st requestState
	kid := ""
	if strings.Count(s, ".") == 2 {
		kid, s, _ = strings.Cut(s, ".")
		if kid == "" {
			return st, false
		}
	}
	p, m, ok := strings.Cut(s, ".")
	if !ok {
		return st, false
	}
	enc := base64.RawURLEncoding
	payload, err1 := enc.DecodeString(p)
	sum, err2 := enc.DecodeString(m)
	if err1 != nil || err2 != nil {
		return st, false
	}
	if !h.keys.verify(kid, payload, sum) {
		return st, false
	}
	return st, json.Unmarshal(payload, &st) == nil
}

// argsDigest is a digest of the arguments, insensitive to how the client
// spaced or ordered them: the retry must carry the same arguments.
func argsDigest(args json.RawMessage) string {
	canon := []byte("{}")
	if len(args) > 0 && string(args) != "null" {
		var v any
		if json.Unmarshal(args, &v) == nil {
			if b, err := json.Marshal(v); err == nil {
				canon = b
			}
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:16])
}

// callerPrincipal is whom a requestState is bound to: a digest of the
// identity the auth hook established (toolexec.ContextWithIdentity), or, when it
// established none, of the credentials the call's request carried (see
// internal/caller); "" for an anonymous call without any.
func callerPrincipal(ctx context.Context) string {
	call := toolexec.CallFromContext(ctx)
	if call == nil {
		return requestPrincipal(ctx, nil)
	}
	return requestPrincipal(ctx, call.Request)
}

// requestPrincipal is callerPrincipal for a request that is no call (a
// resumed stream): ctx is the context the auth hook passed on, r the
// request it passed on (nil: none).
func requestPrincipal(ctx context.Context, r *http.Request) string {
	id, _ := toolexec.IdentityFromContext(ctx)
	var h http.Header
	if r != nil {
		h = r.Header
	}
	return caller.Digest(id, h)
}
