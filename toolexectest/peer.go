// Package toolexectest helps test tools in process: a toolexec.Peer that
// records what a tool reports to its caller and answers the input it asks
// for, so that a Go test calling Executor.Call sees progress, log messages
// and input requests as an MCP client would.
//
// Executor.Call with no Peer drops progress and log messages and fails
// input requests with toolexec.ErrInputUnsupported, as a REST or OXP caller
// would see them. Pass a *Peer in CallRequest.Peer to observe them instead:
//
//	p := &toolexectest.Peer{Answer: toolexectest.AcceptForm(map[string]any{"name": "Ada"})}
//	res, err := x.Call(ctx, toolexec.CallRequest{Name: "greet", Peer: p})
//	// p.ProgressReports(), p.Logs(), p.Asked()
package toolexectest

import (
	"context"
	"slices"
	"sync"

	"github.com/toolexec/toolexec"
)

// Peer is a toolexec.Peer for tests. It records every progress report that
// increases on the one before (as MCP delivers them), every log message
// whatever its level, and every input request; it answers input requests
// with Answer. The zero value records progress and logs and answers no
// input request (toolexec.ErrInputUnsupported). A Peer is safe for
// concurrent use; use one per call.
type Peer struct {
	// Answer answers one input request. Nil means the caller cannot be
	// asked: RequestInput fails with toolexec.ErrInputUnsupported and
	// InputSupported reports false.
	Answer func(ctx context.Context, req toolexec.InputRequest) (toolexec.InputResponse, error)
	// Kinds are the kinds of input the caller declares it answers, as an
	// MCP client declares capabilities; empty, with Answer set, means every
	// kind. A request of another kind fails with
	// toolexec.ErrInputUnsupported without reaching Answer.
	Kinds []toolexec.InputKind

	mu       sync.Mutex
	progress []toolexec.Progress
	logs     []toolexec.LogMessage
	asked    []toolexec.InputRequest
}

var _ toolexec.Peer = (*Peer)(nil)

// Progress implements toolexec.Peer: it records p unless it does not
// exceed the last report recorded.
func (p *Peer) Progress(_ context.Context, pr toolexec.Progress) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.progress); n > 0 && pr.Progress <= p.progress[n-1].Progress {
		return nil
	}
	p.progress = append(p.progress, pr)
	return nil
}

// Log implements toolexec.Peer: it records m.
func (p *Peer) Log(_ context.Context, m toolexec.LogMessage) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.logs = append(p.logs, m)
	return nil
}

// RequestInput implements toolexec.Peer: it records reqs and answers each
// with Answer, in order; the first error ends the request.
func (p *Peer) RequestInput(ctx context.Context, reqs []toolexec.InputRequest) ([]toolexec.InputResponse, error) {
	p.mu.Lock()
	p.asked = append(p.asked, reqs...)
	answer := p.Answer
	p.mu.Unlock()
	for i := range reqs {
		if !p.InputSupported(reqs[i].Kind()) {
			return nil, toolexec.ErrInputUnsupported
		}
	}
	out := make([]toolexec.InputResponse, len(reqs))
	for i := range reqs {
		res, err := answer(ctx, reqs[i])
		if err != nil {
			return nil, err
		}
		out[i] = res
	}
	return out, nil
}

// InputSupported implements toolexec.Peer: whether Answer is set and kind
// is one of Kinds (any kind when Kinds is empty).
func (p *Peer) InputSupported(kind toolexec.InputKind) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.Answer != nil && (len(p.Kinds) == 0 || slices.Contains(p.Kinds, kind))
}

// ProgressReports returns the progress reports recorded so far, in order.
func (p *Peer) ProgressReports() []toolexec.Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.progress)
}

// Logs returns the log messages recorded so far, in order.
func (p *Peer) Logs() []toolexec.LogMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.logs)
}

// Asked returns the input requests the tool made so far, in order.
func (p *Peer) Asked() []toolexec.InputRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.asked)
}

// AcceptForm returns an Answer that accepts every elicitation with content
// and refuses other kinds of input with toolexec.ErrInputUnsupported (set
// Kinds to toolexec.InputKindElicitForm so that the tool knows beforehand).
func AcceptForm(content map[string]any) func(context.Context, toolexec.InputRequest) (toolexec.InputResponse, error) {
	return func(_ context.Context, req toolexec.InputRequest) (toolexec.InputResponse, error) {
		if req.Elicit == nil {
			return toolexec.InputResponse{}, toolexec.ErrInputUnsupported
		}
		return toolexec.InputResponse{Elicit: &toolexec.ElicitResult{Action: "accept", Content: content}}, nil
	}
}
