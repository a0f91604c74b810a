package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/toolexec/toolexec"
)

// inputRouter routes the client's answers to the server-to-client requests
// of 2025 versions (elicitation/create, sampling/createMessage, roots/list)
// to the calls waiting for them. A request goes out on the call's SSE
// stream; the client POSTs its JSON-RPC response to the endpoint as a new
// HTTP request, which deliver hands to the waiting call by the request's
// id. The ids are random (128 bits), so no client can answer, or even
// guess, another's requests.
//
// The table lives in the process; an id names the replica that asked
// (see relay), so an answer that reaches another replica behind a balancer
// is passed on to it through the Executor's store. It holds at most
// maxPendingInputs requests; each waits at most the handler's input
// timeout.
type inputRouter struct {
	timeout time.Duration
	relay   *relay
	mu      sync.Mutex
	waiting map[string]chan inputAnswer
}

// maxPendingInputs bounds the server-to-client requests awaiting an answer
// in one handler: more fail at once with an InputError.
const maxPendingInputs = 4096

// inputAnswer is a client's JSON-RPC response, its members as sent.
type inputAnswer struct {
	result, error json.RawMessage
}

// ask sends reqs on s's stream and waits for every answer.
func (r *inputRouter) ask(ctx context.Context, s *callStream, reqs []toolexec.InputRequest) ([]toolexec.InputResponse, error) {
	ids := make([]string, len(reqs))
	chans := make([]chan inputAnswer, len(reqs))
	r.mu.Lock()
	if len(r.waiting)+len(reqs) > maxPendingInputs {
		r.mu.Unlock()
		return nil, &toolexec.InputError{Code: CodeInternalError, Message: "too many input requests are waiting for an answer"}
	}
	r.relay.ensure(ctx) // so that answers reaching other replicas find their way here
	for i := range reqs {
		ids[i] = r.newRequestID()
		chans[i] = make(chan inputAnswer, 1)
		r.waiting[ids[i]] = chans[i]
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		for _, id := range ids {
			delete(r.waiting, id)
		}
		r.mu.Unlock()
	}()
	for i := range reqs {
		method, params := inputWire(&reqs[i])
		data, err := json.Marshal(struct {
			JSONRPC string `json:"jsonrpc"`
			ID      string `json:"id"`
			Method  string `json:"method"`
			Params  any    `json:"params"`
		}{jsonrpcVersion, ids[i], method, params})
		if err != nil {
			return nil, fmt.Errorf("mcp: input request %q cannot be encoded: %w", reqs[i].Key, err)
		}
		if err := s.send(ctx, data, false); err != nil {
			return nil, err
		}
	}
	timer := time.NewTimer(r.timeout)
	defer timer.Stop()
	out := make([]toolexec.InputResponse, len(reqs))
	for i := range reqs {
		select {
		case a := <-chans[i]:
			if a.error != nil {
				return nil, answerError(a.error)
			}
			resp, err := decodeAnswer(reqs[i].Kind(), a.result)
			if err != nil {
				return nil, err
			}
			out[i] = resp
		case <-timer.C:
			return nil, &toolexec.InputError{Code: toolexec.CodeInputTimeout, Message: "the client did not answer in time"}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return out, nil
}

// deliver hands a client's response to the call waiting for it: here, or
// through the relay on the replica whose id the request id names.
func (r *inputRouter) deliver(ctx context.Context, m *message) {
	id, ok := jsonString(m.id)
	if !ok {
		return
	}
	a := inputAnswer{result: m.result, error: m.errObj}
	if r.deliverLocal(id, a) {
		return
	}
	if rid, ok := replicaOf(id, requestIDPrefix); ok && rid != r.relay.id {
		r.relay.send(ctx, rid, &relayMsg{Kind: "answer", ID: id, Result: m.result, Error: m.errObj})
	}
}

// deliverLocal hands a to the call of this process waiting for id, and
// reports whether one was.
func (r *inputRouter) deliverLocal(id string, a inputAnswer) bool {
	r.mu.Lock()
	ch, ok := r.waiting[id]
	delete(r.waiting, id)
	r.mu.Unlock()
	if ok {
		ch <- a // buffered: never blocks
	}
	return ok
}

// requestIDPrefix starts the id of every server-to-client request.
const requestIDPrefix = "toolexec-"

// newRequestID returns a fresh, unguessable id for a server-to-client
// request: the prefix, the replica's id, and 128 random bits.
func (r *inputRouter) newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return requestIDPrefix + r.relay.id + "-" + hex.EncodeToString(b[:])
}

// inputWire is the method and params of req on the wire. A form-mode
// elicitation is sent without "mode", which every version reads as form.
func inputWire(req *toolexec.InputRequest) (string, any) {
	switch {
	case req.Elicit != nil:
		e := *req.Elicit
		if e.Mode == toolexec.ElicitModeForm {
			e.Mode = ""
		}
		return "elicitation/create", &e
	case req.Sample != nil:
		return "sampling/createMessage", req.Sample
	default:
		return "roots/list", struct{}{}
	}
}

// decodeAnswer reads a client's result for a request of kind.
func decodeAnswer(kind toolexec.InputKind, raw json.RawMessage) (toolexec.InputResponse, error) {
	var out toolexec.InputResponse
	bad := func(err error) error {
		return &toolexec.InputError{Code: CodeInvalidParams, Message: "the client's answer to " + string(kind) + " is malformed: " + err.Error()}
	}
	if !isObject(raw) {
		return out, bad(fmt.Errorf("not an object"))
	}
	switch kind {
	case toolexec.InputKindElicitForm, toolexec.InputKindElicitURL:
		var r toolexec.ElicitResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return out, bad(err)
		}
		switch r.Action {
		case "accept", "decline", "cancel":
		default:
			return out, bad(fmt.Errorf("action %q", r.Action))
		}
		out.Elicit = &r
	case toolexec.InputKindSampling:
		var r toolexec.CreateMessageResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return out, bad(err)
		}
		if len(r.Content) == 0 {
			return out, bad(fmt.Errorf("no content"))
		}
		out.Sample = &r
	case toolexec.InputKindRoots:
		var r toolexec.ListRootsResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return out, bad(err)
		}
		if r.Roots == nil {
			return out, bad(fmt.Errorf("no roots"))
		}
		out.Roots = &r
	}
	return out, nil
}

// answerError reads a client's JSON-RPC error object.
func answerError(raw json.RawMessage) error {
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(raw, &e)
	return &toolexec.InputError{Code: e.Code, Message: e.Message}
}
