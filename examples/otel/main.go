// Command otel serves toolexec's REST surface with OpenTelemetry tracing
// and metrics written to stdout, one JSON document per line, and its logs
// to stderr.
//
// It shows the pipeline's built-ins at work on three tools:
//
//   - weather_get: an input transform tidies the city, and results are
//     cached for 30 seconds (call it twice: the second trace has
//     toolexec.cache.hit=true and no execute span);
//   - slow: sleeps for "ms" milliseconds, with a one-second timeout of its
//     own;
//   - busy: runs one call at a time and refuses the others at once (503
//     with Retry-After).
//
// Run it, then call a tool:
//
//	go run ./examples/otel
//	curl -s -X POST localhost:8080/tools/weather_get/call -d '{"city":" Oslo "}'
//	curl -s -X POST localhost:8080/tools/slow/call -d '{"ms":2000}'
//
// Spans appear as each call ends; metrics every -metrics-interval and on
// exit (Ctrl-C). An incoming W3C traceparent header makes the call's span a
// child of the caller's. With -demo it makes a few calls itself, prints
// their telemetry and exits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolexec/toolexec"
	toolexecotel "github.com/toolexec/toolexec/otel"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.addr, "addr", "localhost:8080", "address to listen on")
	flag.BoolVar(&cfg.demo, "demo", false, "make a few calls in-process, print their telemetry and exit")
	flag.DurationVar(&cfg.metricsInterval, "metrics-interval", 10*time.Second, "how often metrics are written")
	flag.BoolVar(&cfg.traceArgs, "trace-args", false, "record call arguments on spans (secret-looking keys redacted)")
	flag.BoolVar(&cfg.pretty, "pretty", false, "indent the JSON written to stdout")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if err := run(ctx, cfg, os.Stdout, logger); err != nil {
		logger.Error("otel example failed", "error", err)
		os.Exit(1)
	}
}

type config struct {
	addr            string
	demo            bool
	metricsInterval time.Duration
	traceArgs       bool
	pretty          bool
}

// run sets up the providers, serves (or runs the demo) until ctx ends, then
// flushes every span and metric to out.
func run(ctx context.Context, cfg config, out io.Writer, logger *slog.Logger) (err error) {
	tp, mp, err := providers(cfg, out)
	if err != nil {
		return err
	}
	defer func() {
		// Shutting down flushes what is buffered: the last spans, and one
		// final collection of the metrics.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = errors.Join(err, tp.Shutdown(sctx), mp.Shutdown(sctx))
	}()

	// The providers are passed in: toolexec never touches the global ones.
	x := toolexec.New(tools(), toolHandler,
		toolexec.WithAllowExecute(true),
		toolexec.WithObserver(toolexecotel.NewObserver(
			toolexecotel.WithTracerProvider(tp),
			toolexecotel.WithMeterProvider(mp),
			toolexecotel.WithTraceIDFromSpan(true),
			toolexecotel.WithTraceArguments(cfg.traceArgs),
			toolexecotel.WithLogger(logger),
		)),
		toolexec.WithTimeout(5*time.Second),
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 64}),
		toolexec.WithLogger(logger),
	)
	if cfg.demo {
		return demo(ctx, x, logger)
	}
	return serve(ctx, cfg.addr, traceContext(toolexec.NewHandler(x)), logger)
}

// providers builds a tracer provider and a meter provider writing to out.
func providers(cfg config, out io.Writer) (*sdktrace.TracerProvider, *sdkmetric.MeterProvider, error) {
	res := resource.NewSchemaless(attribute.String("service.name", "toolexec-otel-example"))
	topts := []stdouttrace.Option{stdouttrace.WithWriter(out)}
	mopts := []stdoutmetric.Option{stdoutmetric.WithWriter(out)}
	if cfg.pretty {
		topts = append(topts, stdouttrace.WithPrettyPrint())
		mopts = append(mopts, stdoutmetric.WithPrettyPrint())
	}
	spans, err := stdouttrace.New(topts...)
	if err != nil {
		return nil, nil, err
	}
	metrics, err := stdoutmetric.New(mopts...)
	if err != nil {
		return nil, nil, err
	}
	// A syncer writes each span as it ends, which suits a demo; a real
	// service uses sdktrace.WithBatcher and an OTLP exporter.
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans), sdktrace.WithResource(res))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics, sdkmetric.WithInterval(cfg.metricsInterval))))
	return tp, mp, nil
}

// tools describes the example's tools and their pipeline settings.
func tools() toolexec.StaticTools {
	tidyCity := func(_ context.Context, c *toolexec.Call) (map[string]any, error) {
		city, _ := c.Arguments["city"].(string)
		city = strings.TrimSpace(city)
		if city == "" {
			return nil, &toolexec.Error{Code: toolexec.CodeInvalidArguments, Message: "city is required"}
		}
		c.Arguments["city"] = strings.ToUpper(city[:1]) + strings.ToLower(city[1:])
		return c.Arguments, nil
	}
	return toolexec.StaticTools{
		{
			Name: "weather_get", Version: "1.0.0", Description: "Current weather for a city.",
			InputSchema: []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
			Options: toolexec.ToolOptions{
				InputTransforms: []toolexec.InputTransform{tidyCity},
				Cache:           true, CacheShared: true, CacheTTL: 30 * time.Second,
			},
		},
		{
			Name: "slow", Description: "Sleeps for ms milliseconds, unless its one-second timeout ends it first.",
			InputSchema: []byte(`{"type":"object","properties":{"ms":{"type":"integer"}}}`),
			Options:     toolexec.ToolOptions{Timeout: time.Second},
		},
		{
			Name: "busy", Description: "Takes half a second and runs one call at a time.",
			Options: toolexec.ToolOptions{ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 1, FailFast: true, RetryAfter: time.Second}},
		},
	}
}

// toolHandler runs the example's tools.
func toolHandler(ctx context.Context, name string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	switch name {
	case "weather_get":
		return []toolexec.Content{toolexec.Text(fmt.Sprintf("%s: 12°C, light rain", args["city"]))}, false, "", nil
	case "slow":
		ms, _ := args["ms"].(float64)
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
			return []toolexec.Content{toolexec.Text("done")}, false, "", nil
		case <-ctx.Done():
			return nil, false, "", ctx.Err()
		}
	case "busy":
		time.Sleep(500 * time.Millisecond)
		return []toolexec.Content{toolexec.Text("done")}, false, "", nil
	}
	return nil, false, "", fmt.Errorf("unknown tool %q", name)
}

// traceContext continues the caller's trace when the request carries a W3C
// traceparent header. (otelhttp's handler does this and more; this keeps
// the example's dependencies to the OpenTelemetry SDK.)
func traceContext(next http.Handler) http.Handler {
	prop := propagation.TraceContext{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// serve serves h on addr until ctx ends.
func serve(ctx context.Context, addr string, h http.Handler, logger *slog.Logger) error {
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	logger.Info("serving the REST surface; telemetry goes to stdout", "addr", ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}

// demo makes one call of each kind: a cache miss and a hit, a timeout, and
// a failed transform.
func demo(ctx context.Context, x *toolexec.Executor, logger *slog.Logger) error {
	calls := []toolexec.CallRequest{
		{Name: "weather_get", Arguments: []byte(`{"city":" oslo "}`)},
		{Name: "weather_get", Arguments: []byte(`{"city":"OSLO"}`)},
		{Name: "slow", Arguments: []byte(`{"ms":3000}`)},
		{Name: "weather_get", Arguments: []byte(`{"city":""}`)},
	}
	for _, req := range calls {
		res, err := x.Call(ctx, req)
		if err != nil {
			logger.Info("demo call failed", "tool", req.Name, "error", err)
			continue
		}
		logger.Info("demo call", "tool", req.Name, "text", res.Text(), "trace_id", res.TraceID())
	}
	return nil
}
