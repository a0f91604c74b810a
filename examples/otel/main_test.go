package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exportedSpan is the part of stdouttrace's JSON the test reads.
type exportedSpan struct {
	Name       string
	Attributes []struct {
		Key   string
		Value struct{ Value any }
	}
}

func (s exportedSpan) attr(key string) any {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.Value.Value
		}
	}
	return nil
}

func TestDemoExportsSpansAndMetricsToStdout(t *testing.T) {
	var out bytes.Buffer
	cfg := config{demo: true, metricsInterval: time.Hour}

	require.NoError(t, run(context.Background(), cfg, &out, slog.New(slog.DiscardHandler)))

	var spans []exportedSpan
	metrics := map[string]bool{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var probe map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(sc.Bytes(), &probe), "every line is one JSON document")
		if _, ok := probe["ScopeMetrics"]; ok {
			var rm struct {
				ScopeMetrics []struct{ Metrics []struct{ Name string } }
			}
			require.NoError(t, json.Unmarshal(sc.Bytes(), &rm))
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					metrics[m.Name] = true
				}
			}
			continue
		}
		var s exportedSpan
		require.NoError(t, json.Unmarshal(sc.Bytes(), &s))
		spans = append(spans, s)
	}
	require.NoError(t, sc.Err())

	var calls []exportedSpan
	for _, s := range spans {
		if s.attr("gen_ai.operation.name") == "execute_tool" {
			calls = append(calls, s)
		}
	}
	require.Len(t, calls, 4, "one call span per demo call")
	assert.Equal(t, "execute_tool weather_get", calls[0].Name)
	assert.Equal(t, false, calls[0].attr("toolexec.cache.hit"))
	assert.Equal(t, true, calls[1].attr("toolexec.cache.hit"))
	assert.Equal(t, "timeout", calls[2].attr("toolexec.stage"))
	assert.Equal(t, "transform", calls[3].attr("toolexec.stage"))
	for _, name := range []string{"toolexec.calls", "toolexec.call.duration", "toolexec.call.errors", "toolexec.calls.active"} {
		assert.True(t, metrics[name], "metric %s exported", name)
	}
}
