package toolexecotel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolexec/toolexec"
	toolexecotel "github.com/toolexec/toolexec/otel"
)

func TestValidationIsTracedAsTheValidateStage(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	reg := toolexec.NewRegistry()
	// A map in the output keeps output validation (a nil map would encode
	// as null): see TestOutputValidationSkipsOnlyWhatConformsByConstruction.
	toolexec.MustAddTool(reg, toolexec.Tool{Name: "typed"}, func(_ context.Context, in struct {
		N int `json:"n"`
	}) (struct {
		N int            `json:"n"`
		M map[string]int `json:"m"`
	}, error) {
		return struct {
			N int            `json:"n"`
			M map[string]int `json:"m"`
		}{N: in.N, M: map[string]int{}}, nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(discardLogger()),
		toolexec.WithObserver(toolexecotel.NewObserver(toolexecotel.WithTracerProvider(tp))))

	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "typed", Arguments: json.RawMessage(`{"n": 1}`)})
	require.NoError(t, err)
	var directions []string
	for _, s := range sr.Ended() {
		if s.Name() != "toolexec.validate" {
			continue
		}
		for _, kv := range s.Attributes() {
			if kv.Key == "toolexec.validate.direction" {
				directions = append(directions, kv.Value.AsString())
			}
		}
		assert.Equal(t, codes.Unset, s.Status().Code)
	}
	assert.Equal(t, []string{"input", "output"}, directions, "one span for the arguments, one for the structured result")

	_, err = x.Call(context.Background(), toolexec.CallRequest{Name: "typed", Arguments: json.RawMessage(`{"n": "one"}`)})
	require.Error(t, err)
	var failed []sdktrace.ReadOnlySpan
	for _, s := range sr.Ended() {
		if s.Name() == "toolexec.validate" && s.Status().Code == codes.Error {
			failed = append(failed, s)
		}
	}
	require.Len(t, failed, 1)
	assert.Equal(t, "invalid arguments: /n (type)", failed[0].Status().Description, "paths and keywords only: no values")
}

func TestFailedArgumentValuesNeverReachLogsOrSpans(t *testing.T) {
	var logs bytes.Buffer
	sr := tracetest.NewSpanRecorder()
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "login", InputSchema: json.RawMessage(`{"type":"object","properties":{"password":{"type":"string","pattern":"^[a-z]+$"}}}`)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true),
		toolexec.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
		toolexec.WithObserver(toolexecotel.NewObserver(toolexecotel.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))))))

	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "login", Arguments: json.RawMessage(`{"password":"Hunter2-Secret"}`)})
	e, ok := toolexec.AsError(err)
	require.True(t, ok)
	assert.Contains(t, e.Message, "Hunter2-Secret", "the caller is told what failed, in the validator's words")

	assert.Contains(t, logs.String(), "/password (pattern)")
	assert.NotContains(t, logs.String(), "Hunter2-Secret")
	for _, s := range sr.Ended() {
		assert.NotContains(t, s.Status().Description, "Hunter2-Secret", s.Name())
		for _, kv := range s.Attributes() {
			assert.NotContains(t, kv.Value.String(), "Hunter2-Secret", s.Name())
		}
	}
}
