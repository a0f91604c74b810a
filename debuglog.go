package toolexec

import (
	"context"
	"log/slog"
	"time"
)

// The outcomes of a call, as the debug log line names them.
const (
	outcomeSuccess   = "success"
	outcomeToolError = "tool_error"
	outcomeError     = "error"
)

// observation follows one call from Call's start to its end: its observer
// (WithObserver) and what the debug log line says of it.
type observation struct {
	ctx     context.Context // the call's, as the observer made it
	obs     CallObserver
	start   time.Time
	surface Surface
	name    string // the tool's name as the caller asked for it
	tool    *Tool  // the resolved tool; nil until then
}

// beginCall starts observing a call and its clock.
func (x *Executor) beginCall(ctx context.Context, req *CallRequest) observation {
	surface := surfaceOf(req)
	ctx, obs := x.observer.StartCall(ctx, CallInfo{Name: req.Name, Version: req.Version, Surface: surface})
	return observation{ctx: ctx, obs: obs, start: time.Now(), surface: surface, name: req.Name}
}

// endCall reports the call's outcome to its observer and in the debug log.
func (x *Executor) endCall(ob *observation, res *CallToolResult, err error) {
	ob.obs.End(res, err)
	ctx := ob.ctx
	if !x.logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	outcome := outcomeSuccess
	var e *Error
	switch {
	case err != nil:
		outcome = outcomeError
		e, _ = AsError(err) // Call only returns *Error
	case res.IsError:
		outcome = outcomeToolError
	}
	la := make([]slog.Attr, 0, 8)
	la = append(la, slog.String("tool", ob.name))
	if ob.tool != nil && ob.tool.Version != "" {
		la = append(la, slog.String("version", ob.tool.Version))
	}
	la = append(la, slog.String("surface", string(ob.surface)), slog.String("outcome", outcome), slog.Duration("duration", time.Since(ob.start)))
	if e != nil {
		la = append(la, slog.String("stage", string(e.Stage)), slog.String("code", string(e.Code)), slog.String("error", e.Redacted()))
	}
	x.logger.LogAttrs(ctx, slog.LevelDebug, "toolexec: call", la...)
}
