package toolexec

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
)

// InputKind names what an input request asks the caller for.
type InputKind string

// The kinds of input a tool may ask its caller for, named by the MCP
// methods that carry them.
const (
	InputKindElicitForm InputKind = "elicitation/create"     // a form the user fills in
	InputKindElicitURL  InputKind = "elicitation/create#url" // a URL the user opens (out-of-band interaction)
	InputKindSampling   InputKind = "sampling/createMessage" // a completion from the caller's model
	InputKindRoots      InputKind = "roots/list"             // the caller's filesystem roots
)

// InputRequest is one question for the caller. Exactly one of Elicit,
// Sample and ListRoots is set.
type InputRequest struct {
	// Key names the request within the call: the key of inputRequests on
	// MCP 2026-07-28, under which the caller answers. "" is "input-N", N
	// being the request's position among those of the same RequestInput
	// (from 1); keys must be unique within a call.
	Key       string
	Elicit    *ElicitRequest
	Sample    *CreateMessageRequest
	ListRoots *ListRootsRequest
}

// Kind returns the kind of input r asks for ("" when r sets none of its
// requests).
func (r *InputRequest) Kind() InputKind {
	switch {
	case r.Elicit != nil:
		if r.Elicit.Mode == ElicitModeURL {
			return InputKindElicitURL
		}
		return InputKindElicitForm
	case r.Sample != nil:
		return InputKindSampling
	case r.ListRoots != nil:
		return InputKindRoots
	}
	return ""
}

// InputResponse is the caller's answer to one InputRequest: the field
// matching the request's kind is set.
type InputResponse struct {
	Elicit *ElicitResult
	Sample *CreateMessageResult
	Roots  *ListRootsResult
}

// ElicitRequest asks the user for input through the caller: a form
// described by RequestedSchema (mode "form", the default), or a URL to open
// (mode "url").
type ElicitRequest struct {
	// Mode is ElicitModeForm ("" means form) or ElicitModeURL.
	Mode string `json:"mode,omitempty"`
	// Message tells the user what is asked and why.
	Message string `json:"message"`
	// RequestedSchema is the form, in form mode: a JSON Schema of type
	// object whose properties are primitives (any JSON-encodable value: a
	// map, a json.RawMessage, a struct).
	RequestedSchema any `json:"requestedSchema,omitempty"`
	// URL is the page to open, in URL mode.
	URL string `json:"url,omitempty"`
	// ElicitationID identifies the interaction, in URL mode.
	ElicitationID string `json:"elicitationId,omitempty"`
}

// The elicitation modes.
const (
	ElicitModeForm = "form"
	ElicitModeURL  = "url"
)

// ElicitResult is the user's answer: Action is "accept" (Content holds the
// form's values in form mode), "decline" or "cancel".
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// CreateMessageRequest asks the caller's model for a completion
// (sampling/createMessage).
type CreateMessageRequest struct {
	Messages         []SamplingMessage `json:"messages"`
	MaxTokens        int               `json:"maxTokens"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	ModelPreferences any               `json:"modelPreferences,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	Metadata         any               `json:"metadata,omitempty"`
}

// SamplingMessage is one message of a sampling conversation. Content is
// one content block (a *TextContent, *ImageContent or *AudioContent).
type SamplingMessage struct {
	Role    Role    `json:"role"`
	Content Content `json:"content"`
}

// MarshalJSON writes the message with its content block in MCP's shape.
func (m SamplingMessage) MarshalJSON() ([]byte, error) {
	content, err := json.Marshal(m.Content)
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
	}{m.Role, content})
}

// CreateMessageResult is the caller's completion. Content is the content
// block (or, from newer clients, an array of blocks) exactly as sent; Text
// returns its text.
type CreateMessageResult struct {
	Role       Role            `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
}

// Text returns the text of the result's text content blocks, joined; "" when
// it has none.
func (r *CreateMessageResult) Text() string {
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var one block
	if json.Unmarshal(r.Content, &one) == nil && one.Type == "text" {
		return one.Text
	}
	var many []block
	_ = json.Unmarshal(r.Content, &many)
	out := ""
	for _, b := range many {
		if b.Type == "text" {
			out += b.Text
		}
	}
	return out
}

// ListRootsRequest asks the caller for its filesystem roots (roots/list).
// It has no parameters.
type ListRootsRequest struct{}

// ListRootsResult is the caller's roots.
type ListRootsResult struct {
	Roots []Root `json:"roots"`
}

// Root is one filesystem root of the caller.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// RequestInput asks the call's caller every request of reqs and returns its
// answers in the same order. It fails with
//
//   - ErrInputUnsupported when the surface cannot ask (REST, OXP, in-process
//     calls) or the caller did not declare it answers a kind of reqs; no
//     request is sent then;
//   - ErrInputRequired when the surface answers the call with the requests
//     instead (MCP 2026-07-28): the handler must return the error, and runs
//     again with the answers (see ErrInputRequired);
//   - an *InputError when the caller refused a request or did not answer it
//     in time;
//   - the context's error when the call ends meanwhile.
//
// An invalid request (none or several of Elicit, Sample and ListRoots set,
// or a key used twice) fails at once with an error saying so.
func RequestInput(ctx context.Context, reqs ...InputRequest) ([]InputResponse, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	reqs = append([]InputRequest(nil), reqs...) // keys are filled in on a copy, never on the caller's slice
	seen := make(map[string]bool, len(reqs))
	for i := range reqs {
		r := &reqs[i]
		n := 0
		for _, set := range []bool{r.Elicit != nil, r.Sample != nil, r.ListRoots != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return nil, fmt.Errorf("toolexec: input request %d sets %d of Elicit, Sample and ListRoots, not one", i+1, n)
		}
		if r.Key == "" {
			r.Key = "input-" + strconv.Itoa(i+1)
		}
		if seen[r.Key] {
			return nil, fmt.Errorf("toolexec: input request key %q is used twice", r.Key)
		}
		seen[r.Key] = true
	}
	if c := CallFromContext(ctx); c != nil {
		c.askedInput = true // read by the cache stage once the handler has returned
	}
	peer, err := noPeer(ctx)
	if err != nil {
		return nil, err
	}
	return peer.RequestInput(ctx, reqs)
}

// InputSupported reports whether the call's caller can be asked for input
// of kind: false with no Peer. A tool that can do without some input asks
// only for what is supported.
func InputSupported(ctx context.Context, kind InputKind) bool {
	peer := PeerFromContext(ctx)
	return peer != nil && peer.InputSupported(kind)
}

// Elicit asks the user for input through the caller (see RequestInput for
// its errors). key names the request within the call ("" is "input-1").
func Elicit(ctx context.Context, key string, req ElicitRequest) (*ElicitResult, error) {
	res, err := RequestInput(ctx, InputRequest{Key: key, Elicit: &req})
	if err != nil {
		return nil, err
	}
	if res[0].Elicit == nil {
		return nil, &InputError{Code: -32602, Message: "the answer is not an elicitation result"}
	}
	return res[0].Elicit, nil
}

// Sample asks the caller's model for a completion (see RequestInput for its
// errors). key names the request within the call ("" is "input-1").
//
// Deprecated: MCP 2026-07-28 deprecates sampling (SEP-2577): few clients
// implement it, and it will be removed from a later revision. It keeps
// working on every protocol version toolexec serves, with clients that
// declare the sampling capability. A tool that needs a model's completion
// should call the model provider's API itself, with the host's own
// credentials and model choice.
func Sample(ctx context.Context, key string, req CreateMessageRequest) (*CreateMessageResult, error) {
	res, err := RequestInput(ctx, InputRequest{Key: key, Sample: &req})
	if err != nil {
		return nil, err
	}
	if res[0].Sample == nil {
		return nil, &InputError{Code: -32602, Message: "the answer is not a sampling result"}
	}
	return res[0].Sample, nil
}

// ListRoots asks the caller for its filesystem roots (see RequestInput for
// its errors). key names the request within the call ("" is "input-1").
//
// Deprecated: MCP 2026-07-28 deprecates roots (SEP-2577): few clients
// implement them and servers need not respect them, and they will be
// removed from a later revision. It keeps working on every protocol version
// toolexec serves, with clients that declare the roots capability. Take the
// directories or files a tool works on as its arguments, or from the
// host's configuration.
func ListRoots(ctx context.Context, key string) ([]Root, error) {
	res, err := RequestInput(ctx, InputRequest{Key: key, ListRoots: &ListRootsRequest{}})
	if err != nil {
		return nil, err
	}
	if res[0].Roots == nil {
		return nil, &InputError{Code: -32602, Message: "the answer is not a roots list"}
	}
	return res[0].Roots.Roots, nil
}
