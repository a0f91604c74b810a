package toolexec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// This file holds the bounds of docs/security.md ("work and memory per
// request are linear in its size; answers are bounded") to account on every
// surface: numbers the validator cannot check cheaply, and failure lists.

// hugeExponents is a 393-byte object of numbers whose exact value has a
// million digits: the body that cost ~0.9 s of CPU before the number bound.
func hugeExponents() string {
	var b strings.Builder
	b.WriteString(`{"n":1,"x":[`)
	for i := 0; b.Len() < 380; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("1e-999999")
	}
	b.WriteString(`]}`)
	return b.String()
}

// allocated returns the bytes f allocates, the whole process counted: run
// it in a test that is not parallel.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestNumbersTheValidatorCannotCheckCheaplyAreRefused(t *testing.T) {
	body := hugeExponents()
	require.Less(t, len(body), 400)
	reg := toolexec.NewRegistry()
	schema := `{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"array","items":{"type":"number","multipleOf":0.5,"minimum":0}}}}`
	reg.MustAdd(toolexec.Tool{Name: "t", InputSchema: json.RawMessage(schema)}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		t.Error("the tool ran")
		return nil, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	t.Run("validate", func(t *testing.T) {
		var res toolexec.ValidateResult
		// One such number costs ~400 KB in exact arithmetic: 40 of them,
		// 16 MB. Refused by the bound, the whole body costs a few KB.
		n := allocated(func() { res, _ = x.Validate(context.Background(), "t", "", json.RawMessage(body)) })
		assert.Less(t, n, uint64(256<<10), "bytes allocated")
		require.False(t, res.Valid)
		require.NotEmpty(t, res.Errors)
		for _, f := range res.Errors {
			assert.Equal(t, "format", f.Keyword)
			assert.True(t, strings.HasPrefix(f.Path, "/x/"), f.Path)
			assert.Contains(t, f.Message, "number cannot be checked")
		}
	})
	t.Run("call", func(t *testing.T) {
		var err error
		n := allocated(func() {
			_, err = x.Call(context.Background(), toolexec.CallRequest{Name: "t", Arguments: json.RawMessage(body)})
		})
		assert.Less(t, n, uint64(256<<10), "bytes allocated")
		e, ok := toolexec.AsError(err)
		require.True(t, ok, "%v", err)
		assert.Equal(t, toolexec.StageValidate, e.Stage)
		assert.Equal(t, toolexec.CodeInvalidArguments, e.Code)
		require.NotEmpty(t, e.Failures)
		assert.Equal(t, "format", e.Failures[0].Keyword)
	})
	t.Run("the bounds themselves are checked", func(t *testing.T) {
		for num, ok := range map[string]bool{
			"1e400": true, "-1E+400": true, "1e-400": true, "1e0400": true, "1" + strings.Repeat("0", 399): true,
			"1e401": false, "1e-999999": false, "1e99999999999999999999": false, "1" + strings.Repeat("0", 400): false,
			"0." + strings.Repeat("0", 399) + "1": false,
		} {
			res, err := x.Validate(context.Background(), "t", "", json.RawMessage(`{"x":[`+num+`]}`))
			require.NoError(t, err)
			refused := len(res.Errors) > 0 && res.Errors[0].Keyword == "format"
			assert.Equal(t, !ok, refused, "%.40s: %+v", num, res)
		}
	})
}

func TestHugeNumbersAreRefusedOnEverySurface(t *testing.T) {
	f := newHostileFixture(t)
	body := hugeExponents()
	for _, p := range []probe{
		{name: "rest call", path: "/api/tools/ns/count/call", body: body, want: restInvalidAll("format")},
		{name: "rest validate", path: "/api/tools/ns/count/validate", body: body, want: validateAll("format")},
		{name: "mcp", path: "/mcp", body: rpcCall(body), want: func(t *testing.T, r *reply) {
			require.Equal(t, http.StatusOK, r.status)
			restInvalidAll("format")(t, &reply{status: http.StatusUnprocessableEntity, body: rpcMessage(t, r.body, "1")["result"]})
		}},
		{name: "handsai", path: "/mcp/tools/call", body: handsAICall(body), want: func(t *testing.T, r *reply) {
			handsAIError(http.StatusOK, -32602, `"h-1"`)(t, r)
			assert.Contains(t, string(r.body), "number cannot be checked")
		}},
		{name: "oxp", path: "/oxp/tools/call", body: oxpCall(body), want: func(t *testing.T, r *reply) {
			oxpInvalid("x")(t, r)
			assert.Contains(t, string(r.body), "number cannot be checked")
		}},
	} {
		t.Run(p.name, func(t *testing.T) { f.runProbes(t, []probe{p}) })
	}
}

// manyFailures is an object of n members the fixture's schema does not
// allow: n failures, and n is missing.
func manyFailures(n int) string {
	var b strings.Builder
	b.WriteString(`{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"m%05d":1`, i)
	}
	b.WriteString(`}`)
	return b.String()
}

// restInvalidAll: 422 with an isError result listing failures of keyword
// (and maybe others), the text one line per failure.
func restInvalidAll(keyword string) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		require.Equal(t, http.StatusUnprocessableEntity, r.status, "%s", r.body)
		var res struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent struct {
				Errors  []toolexec.ValidationFailure `json:"errors"`
				Omitted int                          `json:"omitted"`
			} `json:"structuredContent"`
			IsError bool `json:"isError"`
		}
		require.NoError(t, json.Unmarshal(r.body, &res), "%s", r.body)
		assert.True(t, res.IsError)
		require.NotEmpty(t, res.StructuredContent.Errors)
		assert.Equal(t, keyword, res.StructuredContent.Errors[0].Keyword)
	}
}

func validateAll(keyword string) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		var v toolexec.ValidateResult
		require.NoError(t, json.Unmarshal(r.body, &v))
		assert.False(t, v.Valid)
		require.NotEmpty(t, v.Errors)
		for _, f := range v.Errors {
			assert.Equal(t, keyword, f.Keyword)
		}
	}
}

func TestFailureListsAreBoundedOnEverySurface(t *testing.T) {
	f := newHostileFixture(t)
	const n = 3000 // 3,001 failures with the missing n, in 40 KB
	body := manyFailures(n)
	require.Less(t, len(body), hostileLimit)
	const listed, omitted = toolexec.MaxValidationFailures, n + 1 - toolexec.MaxValidationFailures
	note := fmt.Sprintf("%d more failures were omitted", omitted)
	const maxAnswer = 32 << 10 // the failures' own bound, MaxFailureBytes, plus the envelope

	check := func(t *testing.T, r *reply) {
		t.Helper()
		assert.Less(t, len(r.body), maxAnswer, "the answer is bounded")
	}
	calledResult := func(t *testing.T, raw json.RawMessage) {
		var res struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent struct {
				Errors  []toolexec.ValidationFailure `json:"errors"`
				Omitted int                          `json:"omitted"`
			} `json:"structuredContent"`
		}
		require.NoError(t, json.Unmarshal(raw, &res))
		assert.Len(t, res.StructuredContent.Errors, listed)
		assert.Equal(t, omitted, res.StructuredContent.Omitted)
		lines := strings.Split(res.Content[0].Text, "\n")
		assert.Len(t, lines, listed+1)
		assert.Equal(t, note, lines[len(lines)-1])
	}
	for _, p := range []probe{
		{name: "rest call", path: "/api/tools/ns/count/call", body: body, want: func(t *testing.T, r *reply) {
			check(t, r)
			require.Equal(t, http.StatusUnprocessableEntity, r.status)
			calledResult(t, r.body)
		}},
		{name: "rest validate", path: "/api/tools/ns/count/validate", body: body, want: func(t *testing.T, r *reply) {
			check(t, r)
			var v toolexec.ValidateResult
			require.NoError(t, json.Unmarshal(r.body, &v))
			assert.Len(t, v.Errors, listed)
			assert.Equal(t, omitted, v.Omitted)
		}},
		{name: "mcp", path: "/mcp", body: rpcCall(body), want: func(t *testing.T, r *reply) {
			check(t, r)
			calledResult(t, rpcMessage(t, r.body, "1")["result"])
		}},
		{name: "handsai", path: "/mcp/tools/call", body: handsAICall(body), want: func(t *testing.T, r *reply) {
			check(t, r)
			handsAIError(http.StatusOK, -32602, `"h-1"`)(t, r)
			assert.True(t, strings.HasSuffix(rpcErrorMessage(t, r.body), "; "+note), "%s", r.body)
		}},
		{name: "oxp", path: "/oxp/tools/call", body: oxpCall(body), want: func(t *testing.T, r *reply) {
			check(t, r)
			require.Equal(t, http.StatusUnprocessableEntity, r.status)
			var v struct {
				Message         string            `json:"message"`
				ParameterErrors map[string]string `json:"parameter_errors"`
			}
			require.NoError(t, json.Unmarshal(r.body, &v))
			assert.Len(t, v.ParameterErrors, listed)
			assert.True(t, strings.HasSuffix(v.Message, "("+note+")"), v.Message)
		}},
	} {
		t.Run(p.name, func(t *testing.T) { f.runProbes(t, []probe{p}) })
	}
}

func rpcErrorMessage(t *testing.T, body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(body, &e))
	return e.Error.Message
}

func TestFailureMessagesAndTheirTotalAreBounded(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":{"type":"string","pattern":"^a+$"}}`)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	x := toolexec.New(reg, reg)

	long := strings.Repeat("b", 100<<10)
	res, err := x.Validate(context.Background(), "t", "", json.RawMessage(`{"s":"`+long+`"}`))
	require.NoError(t, err)
	require.Len(t, res.Errors, 1)
	assert.LessOrEqual(t, len(res.Errors[0].Message), toolexec.MaxFailureMessageBytes)
	assert.True(t, strings.HasSuffix(res.Errors[0].Message, "…"))

	// 80 failures of 500 bytes each: past MaxFailureBytes before
	// MaxValidationFailures.
	var b strings.Builder
	b.WriteString("{")
	for i := range 80 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%02d":"%s"`, i, strings.Repeat("b", 500))
	}
	b.WriteString("}")
	res, err = x.Validate(context.Background(), "t", "", json.RawMessage(b.String()))
	require.NoError(t, err)
	total := 0
	for _, f := range res.Errors {
		total += len(f.Path) + len(f.Message) + len(f.Keyword)
	}
	assert.LessOrEqual(t, total, toolexec.MaxFailureBytes)
	assert.Equal(t, 80, len(res.Errors)+res.Omitted)
	assert.Positive(t, res.Omitted)
}

// BenchmarkValidateHostile shows what the hostile bodies cost the validate
// endpoint's engine: compare with BenchmarkValidateNormal.
func BenchmarkValidateHostile(b *testing.B) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"array","items":{"type":"number","multipleOf":0.5}}},"additionalProperties":false}`)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	x := toolexec.New(reg, reg)
	for name, body := range map[string]string{
		"huge exponents 393 B":           hugeExponents(),
		"3000 failures 40 KB":            manyFailures(3000),
		"one failure per 3 bytes 256 KB": `{"x":[` + strings.Repeat(`"",`, 87000) + `""]}`,
		"valid 256 KB":                   `{"x":[` + strings.Repeat(`1.5,`, 65000) + `1]}`,
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				_, _ = x.Validate(context.Background(), "t", "", json.RawMessage(body))
			}
		})
	}
}

// TestAnswersToTheLargestHostileBodyAreBounded sends, on every surface, a
// body that fails the schema in the most ways per byte (one failure per 3
// bytes), and holds the answer to a few KiB whatever the body's size: the
// amplification docs/security.md states. It sends 256 KiB; with
// TOOLEXEC_SOAK=1 (make soak), as large as the default limit, 1 MiB.
func TestAnswersToTheLargestHostileBodyAreBounded(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ns/t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	srv := serveAll(t, toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quiet())))
	size := 256 << 10
	if os.Getenv("TOOLEXEC_SOAK") != "" {
		size = int(toolexec.DefaultMaxBodyBytes)
	}
	n := (size - 256) / 3
	args := `{"a":[` + strings.Repeat(`"",`, n-1) + `""]}`
	const maxAnswer = 16 << 10
	for _, c := range surfaceCalls(args) {
		if strings.Contains(c.name, "list") || strings.Contains(c.name, "describe") {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			status, body := c.do(t, srv)
			assert.Less(t, status, 500)
			assert.Contains(t, body, strconv.Itoa(n-toolexec.MaxValidationFailures), "the omitted count")
			assert.Contains(t, body, `/99`, "the first items are listed")
			assert.Less(t, len(body), maxAnswer, "the answer is bounded")
			t.Logf("%s: %d-byte body, %d failures: %d-byte answer (x%.4f)", c.name, len(c.body), n, len(body), float64(len(body))/float64(len(c.body)))
		})
	}
}

func TestACallsFailuresAreBoundedThroughTheGoAPI(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "t", InputSchema: json.RawMessage(countSchema)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "t", Arguments: json.RawMessage(manyFailures(500))})
	e, ok := toolexec.AsError(err)
	require.True(t, ok, "%v", err)
	assert.Len(t, e.Failures, toolexec.MaxValidationFailures)
	assert.Equal(t, 501-toolexec.MaxValidationFailures, e.Omitted)
	assert.True(t, strings.HasSuffix(e.Message, "; 401 more failures were omitted"), e.Message)
	res := e.Result()
	assert.True(t, strings.HasSuffix(res.Text(), "\n401 more failures were omitted"))
	assert.Equal(t, 401, res.StructuredContent.(map[string]any)["omitted"])
}
