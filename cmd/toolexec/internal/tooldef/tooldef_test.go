package tooldef

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

func TestRows_CapsAndNumbers(t *testing.T) {
	r := NewRows(2, 1000)
	assert.True(t, r.Add([]byte(`{"n":1,"big":12345678901234567890,"f":1.5,"exp":1e3}`)))
	assert.True(t, r.Add([]byte(`{"n":2}`)))
	assert.False(t, r.Add([]byte(`{"n":3}`)), "past maxRows")
	assert.False(t, r.Add([]byte(`{"n":4}`)), "and every later row")
	res := r.Result()
	sc := res.StructuredContent.(map[string]any)
	assert.Equal(t, float64(2), sc["rowCount"])
	assert.Equal(t, true, sc["truncated"])
	first := sc["rows"].([]any)[0].(map[string]any)
	assert.Equal(t, float64(1), first["n"])
	assert.Equal(t, json.Number("12345678901234567890"), first["big"], "an integer beyond int64 stays exact")
	assert.Equal(t, 1.5, first["f"])
	assert.Equal(t, float64(1000), first["exp"])
	require.Len(t, res.Content, 3)
	assert.Equal(t, res.Text()[len(res.Text())-len("[truncated: more than 2 rows; only the first 2 are returned]"):], "[truncated: more than 2 rows; only the first 2 are returned]")

	r = NewRows(10, 20)
	assert.True(t, r.Add([]byte(`{"a":"0123456789"}`)))
	assert.False(t, r.Add([]byte(`{"b":1}`)), "past maxBytes")
	assert.Equal(t, "the rows exceed 20 bytes; only the first 1 rows are returned", r.Result().StructuredContent.(map[string]any)["message"])
}

func TestCaps(t *testing.T) {
	rows, bytes := Caps(&config.Tool{})
	assert.Equal(t, 1000, rows)
	assert.Equal(t, 1<<20, bytes)
	for _, ts := range []config.TaskSupport{config.TaskOptional, config.TaskRequired} {
		_, bytes = Caps(&config.Tool{TaskSupport: ts})
		assert.Equal(t, 128<<10, bytes, "a task keeps at most 512 KiB of result (%s)", ts)
	}
	_, bytes = Caps(&config.Tool{TaskSupport: config.TaskForbidden})
	assert.Equal(t, 1<<20, bytes)
	rows, bytes = Caps(&config.Tool{MaxRows: 5, MaxBytes: 7, TaskSupport: config.TaskOptional})
	assert.Equal(t, 5, rows)
	assert.Equal(t, 7, bytes, "the file's cap wins")
}

// The kinds as the tools' packages define them.
var (
	database = Kind{Destructive: true, Timeout: 7 * time.Second} // sql (a mysql source's query timeout), redis, mongodb
	httpKind = Kind{OpenWorld: true, Timeout: 30 * time.Second}
	script   = Kind{}
)

func ptr(b bool) *bool { return &b }

// TestDefinition_Annotations: what the file says wins; else the kind's
// defaults: openWorldHint, and destructiveHint for a tool that writes
// (left out by the kinds that do not set it); a read-only tool is never
// announced destructive.
func TestDefinition_Annotations(t *testing.T) {
	for _, c := range []struct {
		name string
		tool config.Tool
		kind Kind
		want toolexec.ToolAnnotations
	}{
		{"a database read", config.Tool{ReadOnly: true}, database,
			toolexec.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)}},
		{"a database write", config.Tool{}, database,
			toolexec.ToolAnnotations{ReadOnlyHint: ptr(false), OpenWorldHint: ptr(false), DestructiveHint: ptr(true)}},
		{"a database write the file says is not destructive, is idempotent and open", config.Tool{Destructive: ptr(false), Idempotent: ptr(true), OpenWorld: ptr(true)}, database,
			toolexec.ToolAnnotations{ReadOnlyHint: ptr(false), OpenWorldHint: ptr(true), DestructiveHint: ptr(false), IdempotentHint: ptr(true)}},
		{"a read-only tool is never destructive", config.Tool{ReadOnly: true, Destructive: ptr(true)}, database,
			toolexec.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)}},
		{"an http GET", config.Tool{ReadOnly: true, Idempotent: ptr(true)}, httpKind,
			toolexec.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(true), IdempotentHint: ptr(true)}},
		{"an http POST leaves destructiveHint to MCP's default", config.Tool{}, httpKind,
			toolexec.ToolAnnotations{ReadOnlyHint: ptr(false), OpenWorldHint: ptr(true)}},
		{"an http tool the file says is closed", config.Tool{OpenWorld: ptr(false), Destructive: ptr(true)}, httpKind,
			toolexec.ToolAnnotations{ReadOnlyHint: ptr(false), OpenWorldHint: ptr(false), DestructiveHint: ptr(true)}},
		{"a script", config.Tool{ReadOnly: true}, script,
			toolexec.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)}},
		{"a script that fetches", config.Tool{}, Kind{OpenWorld: true},
			toolexec.ToolAnnotations{ReadOnlyHint: ptr(false), OpenWorldHint: ptr(true)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			def := Definition(&c.tool, c.kind)
			require.NotNil(t, def.Annotations)
			assert.Equal(t, c.want, *def.Annotations)
		})
	}
}

// TestDefinition_Options: the execution settings every kind takes from
// the file in the same way.
func TestDefinition_Options(t *testing.T) {
	n := &config.Param{Name: "n", Type: config.TypeInteger, Description: "n", Required: true}
	tool := &config.Tool{
		Name: "t", Description: "does t", ReadOnly: true,
		Parameters: []*config.Param{n},
		Cache:      true, CacheTTL: time.Minute, Scopes: []string{"read"},
		MaxConcurrency: 3, RateLimit: &config.RateLimit{Rate: 5, Per: time.Second, Burst: 2},
		TaskSupport: config.TaskOptional,
	}
	def := Definition(tool, database)
	assert.Equal(t, "t", def.Name)
	assert.Equal(t, "does t", def.Description)
	assert.JSONEq(t, `{"type":"object","properties":{"n":{"type":"integer","description":"n"}},"required":["n"],"additionalProperties":false}`, string(def.InputSchema))
	o := def.Options
	assert.Equal(t, 7*time.Second, o.Timeout, "the kind's timeout when the tool sets none")
	assert.True(t, o.Cache)
	assert.True(t, o.CacheShared, "a declared tool's answer depends on its arguments only")
	assert.Equal(t, time.Minute, o.CacheTTL)
	assert.Equal(t, []string{"read"}, o.Scopes)
	assert.Equal(t, &toolexec.ConcurrencyLimit{Max: 3}, o.ConcurrencyLimit)
	assert.Equal(t, &toolexec.RateLimit{Rate: 5, Per: time.Second, Burst: 2}, o.RateLimit)
	assert.Equal(t, toolexec.TaskSupportOptional, o.TaskSupport)
	assert.Len(t, o.Interceptors, 1, "the bounds of the integer argument, for every kind")
	for _, k := range []Kind{httpKind, script} {
		assert.Len(t, Definition(tool, k).Options.Interceptors, 1)
	}

	tool.Timeout = time.Second
	tool.ReadOnly = false
	tool.RateLimit = &config.RateLimit{}
	tool.MaxConcurrency = 0
	tool.Parameters = nil
	tool.TaskSupport = ""
	o = Definition(tool, database).Options
	assert.Equal(t, time.Second, o.Timeout, "the tool's own timeout wins")
	assert.False(t, o.Cache, "a tool that writes is never cached")
	assert.Equal(t, &toolexec.RateLimit{}, o.RateLimit, "rateLimit: none is no limit, the server's included")
	assert.Nil(t, o.ConcurrencyLimit, "the server's limit")
	assert.Empty(t, o.Interceptors)
	assert.Equal(t, toolexec.TaskSupport(""), o.TaskSupport)

	tool.RateLimit = nil
	assert.Nil(t, Definition(tool, database).Options.RateLimit, "the server's rate")
	assert.Equal(t, time.Duration(0), Definition(&config.Tool{}, script).Options.Timeout, "0: the server's --timeout")
}

// TestDefinition_Schema: the schema holds every parameter of the tool,
// whatever list declares it, and a tool with open inputs takes any
// object.
func TestDefinition_Schema(t *testing.T) {
	p := func(name string) *config.Param {
		return &config.Param{Name: name, Type: config.TypeString, Description: name, Required: true}
	}
	tool := &config.Tool{
		Parameters: []*config.Param{p("a")}, TemplateParameters: []*config.Param{p("b")},
		PathParams: []*config.Param{p("c")}, QueryParams: []*config.Param{p("d")},
		HeaderParams: []*config.Param{p("e")}, BodyParams: []*config.Param{p("f")},
	}
	var schema struct {
		Properties map[string]any `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(Definition(tool, database).InputSchema, &schema))
	assert.Len(t, schema.Properties, 6)

	open := &config.Tool{}
	open.OpenInputs = true
	assert.JSONEq(t, `{"type":"object"}`, string(Definition(open, script).InputSchema))
}
