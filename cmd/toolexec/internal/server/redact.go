package server

import (
	"context"
	"errors"
	"log/slog"
)

// redactingHandler is a slog.Handler that passes the message and every
// string, error and Stringer attribute of a record through redact before
// next handles it: the tools of one config log through it, so a value the
// file took from the environment (a host, a user, a path in a driver's
// error) is logged as its ${NAME}.
type redactingHandler struct {
	next   slog.Handler
	redact func(string) string
}

// redactLogger returns logger with redact applied to what it logs; nil
// stays nil.
func redactLogger(logger *slog.Logger, redact func(string) string) *slog.Logger {
	if logger == nil {
		return nil
	}
	return slog.New(&redactingHandler{next: logger.Handler(), redact: redact})
}

func (h *redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.redact(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = h.attr(a)
	}
	return &redactingHandler{next: h.next.WithAttrs(red), redact: h.redact}
}

func (h *redactingHandler) WithGroup(name string) slog.Handler {
	return &redactingHandler{next: h.next.WithGroup(name), redact: h.redact}
}

// attr redacts one attribute, groups included. Values of other kinds
// (numbers, times, durations) cannot carry a substituted string and pass
// unchanged; any other value is logged as its redacted text.
func (h *redactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.redact(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, ga := range g {
			red[i] = h.attr(ga)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, h.redact(err.Error()))
		}
		return slog.String(a.Key, h.redact(v.String()))
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// redactError returns err with its text passed through redact (a new
// error: its chain is dropped, since its parts may quote the values).
func redactError(err error, redact func(string) string) error {
	if err == nil {
		return nil
	}
	return errors.New(redact(err.Error()))
}
