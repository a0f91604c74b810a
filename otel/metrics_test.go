package toolexecotel_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/toolexec/toolexec"
	toolexecotel "github.com/toolexec/toolexec/otel"
)

// newReader returns a meter provider read by hand.
func newReader() (*sdkmetric.MeterProvider, *sdkmetric.ManualReader) {
	r := sdkmetric.NewManualReader()
	return sdkmetric.NewMeterProvider(sdkmetric.WithReader(r)), r
}

// collect reads the toolexec metrics by name.
func collect(t *testing.T, r *sdkmetric.ManualReader) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.Collect(context.Background(), &rm))
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != "github.com/toolexec/toolexec" {
			continue
		}
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

// key renders an attribute set as "k=v,k=v" in key order.
func key(set attribute.Set) string {
	return set.Encoded(attribute.DefaultEncoder())
}

// sums returns an int64 counter's values by attribute set.
func sums(t *testing.T, agg metricdata.Aggregation) map[string]int64 {
	t.Helper()
	sum, ok := agg.(metricdata.Sum[int64])
	require.True(t, ok, "%T is not an int64 sum", agg)
	out := map[string]int64{}
	for _, dp := range sum.DataPoints {
		out[key(dp.Attributes)] = dp.Value
	}
	return out
}

func metricsExec(t *testing.T, opts ...toolexec.Option) *toolexec.Executor {
	h := func(_ context.Context, name string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		switch name {
		case "iserr":
			return []toolexec.Content{toolexec.Text("no")}, true, "", nil
		case "fails":
			return nil, false, "", errors.New("down")
		}
		return nil, false, "", nil
	}
	return multiExec(t, h, []toolexec.Tool{{Name: "ok", Version: "1.0.0"}, {Name: "iserr"}, {Name: "fails"}}, opts...)
}

func TestMetricsCountCallsByOutcome(t *testing.T) {
	mp, r := newReader()
	x := metricsExec(t, observe(toolexecotel.WithMeterProvider(mp)))

	for _, name := range []string{"ok", "ok", "iserr", "fails", "missing"} {
		_, _ = call(x, name, `{}`)
	}

	m := collect(t, r)
	assert.Equal(t, map[string]int64{
		"toolexec.outcome=success,toolexec.surface=go,toolexec.tool.name=ok,toolexec.tool.version=1.0.0": 2,
		"toolexec.outcome=tool_error,toolexec.surface=go,toolexec.tool.name=iserr":                       1,
		"toolexec.outcome=error,toolexec.surface=go,toolexec.tool.name=fails":                            1,
		"toolexec.outcome=error,toolexec.surface=go":                                                     1, // unknown names never become attributes
	}, sums(t, m["toolexec.calls"]))

	assert.Equal(t, map[string]int64{
		"error.type=tool_error,toolexec.stage=execute,toolexec.surface=go,toolexec.tool.name=fails": 1,
		"error.type=not_found,toolexec.stage=resolve,toolexec.surface=go":                           1,
	}, sums(t, m["toolexec.call.errors"]))

	hist, ok := m["toolexec.call.duration"].(metricdata.Histogram[float64])
	require.True(t, ok)
	var count uint64
	for _, dp := range hist.DataPoints {
		count += dp.Count
		assert.GreaterOrEqual(t, dp.Sum, 0.0)
	}
	assert.Equal(t, uint64(5), count, "every call's duration is recorded")
	assert.Equal(t, []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60}, hist.DataPoints[0].Bounds)
}

func TestMetricsCountCallsInFlight(t *testing.T) {
	mp, r := newReader()
	g := newGate()
	x := newExec(t, toolexec.Tool{Name: "slow"}, g.handle, observe(toolexecotel.WithMeterProvider(mp)))
	active := func() map[string]int64 { return sums(t, collect(t, r)["toolexec.calls.active"]) }

	done := background(x, "slow")
	<-g.entered
	assert.Equal(t, map[string]int64{"toolexec.surface=go,toolexec.tool.name=slow": 1}, active())

	close(g.release)
	require.NoError(t, <-done)
	assert.Equal(t, map[string]int64{"toolexec.surface=go,toolexec.tool.name=slow": 0}, active())
}

func TestMetricsRecordSurface(t *testing.T) {
	mp, r := newReader()
	x := newExec(t, toolexec.Tool{Name: "t"}, textHandler("x"), observe(toolexecotel.WithMeterProvider(mp)))

	w := httptest.NewRecorder()
	toolexec.NewHandler(x).ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/tools/t/call", strings.NewReader(`{}`)))
	require.Equal(t, http.StatusOK, w.Code)

	assert.Equal(t, map[string]int64{"toolexec.outcome=success,toolexec.surface=rest,toolexec.tool.name=t": 1},
		sums(t, collect(t, r)["toolexec.calls"]))
}
