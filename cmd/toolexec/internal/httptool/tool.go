package httptool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/netguard"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/params"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/tooldef"
)

// Defaults, used when a source or tool does not set its own (the result
// caps are tooldef's).
const (
	// DefaultTimeout is an http source's timeout (mcp-toolbox's default).
	DefaultTimeout = 30 * time.Second
	// maxErrorMessage bounds the upstream message of a failed call.
	maxErrorMessage = 1024
	// dialTimeout bounds one connection attempt (the call's timeout
	// bounds them all).
	dialTimeout = 10 * time.Second
)

// Source is an http source: its base URL, default headers and query
// parameters, and its client with the allow-list.
type Source struct {
	cfg    *config.Source
	base   *url.URL
	client *http.Client
	// envValues are the values the file took from the environment
	// (WithSecrets).
	envValues []string
}

// NewSource prepares src for its tools: its allow-list (see
// netguard.AllowList), the address guard of its dials (private networks
// only with src.AllowPrivateNetworks) and its client.
func NewSource(src *config.Source, opts ...SourceOption) (*Source, error) {
	var o sourceOptions
	for _, opt := range opts {
		opt(&o)
	}
	base, err := url.Parse(src.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("source %q: baseUrl is not a URL", src.Name)
	}
	list, err := netguard.New(base, src.AllowedHosts, src.AllowPrivateNetworks)
	if err != nil {
		return nil, fmt.Errorf("source %q: %w", src.Name, err)
	}
	secretQuery := make([]string, 0, len(src.QueryParams))
	for k := range src.QueryParams {
		secretQuery = append(secretQuery, k)
	}
	for k := range base.Query() {
		secretQuery = append(secretQuery, k)
	}
	if o.dial == nil {
		d := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
		o.dial = d.DialContext
	}
	guard := netguard.NewGuard(list, o.lookup, o.dial)
	return &Source{cfg: src, base: base, client: newClient(list, guard, secretQuery), envValues: o.secrets}, nil
}

// Close releases the source's idle connections.
func (s *Source) Close() error {
	s.client.CloseIdleConnections()
	return nil
}

// Tool is one http tool bound to its source; Handle is its handler.
type Tool struct {
	tooldef.Base
	src  *Source
	body *template.Template
	// secrets replaces the secrets among the configured header and query
	// values (see secretPairs) in whatever the upstream sends back, in
	// case it echoes the request.
	secrets *strings.Replacer
}

var pathParamRef = regexp.MustCompile(`\{\{\s*\.(\w+)\s*\}\}`)

// New binds t to src. requestBody, when set, is a Go text/template whose
// values are the arguments with strings JSON-escaped (see Handle).
func New(t *config.Tool, src *Source, logger *slog.Logger) (*Tool, error) {
	tl := &Tool{Base: tooldef.NewBase(t, logger), src: src}
	if t.RequestBody != "" {
		tmpl, err := template.New(t.Name).Option("missingkey=zero").Funcs(template.FuncMap{"json": jsonFunc}).Parse(t.RequestBody)
		if err != nil {
			return nil, fmt.Errorf("tool %q: requestBody: %v", t.Name, err)
		}
		tl.body = tmpl
	}
	if pairs := secretPairs(src.envValues, src.cfg.Headers, t.Headers, src.cfg.QueryParams); len(pairs) > 0 {
		tl.secrets = strings.NewReplacer(pairs...)
	}
	for _, m := range pathParamRef.FindAllStringSubmatch(t.Path, -1) {
		found := false
		for _, p := range t.PathParams {
			found = found || p.Name == m[1]
		}
		if !found {
			return nil, fmt.Errorf("tool %q: path uses {{.%s}}, which is not in pathParams", t.Name, m[1])
		}
	}
	return tl, nil
}

// Definition returns the toolexec.Tool clients see (tooldef.Definition):
// openWorldHint true unless the file says otherwise; the source's timeout,
// else DefaultTimeout, for a tool that sets none. Headers, and so any
// secret in them, are not part of it. A cancelled task's context cancels
// its request.
func (t *Tool) Definition() toolexec.Tool {
	timeout := t.src.cfg.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	return tooldef.Definition(t.Cfg, tooldef.Kind{OpenWorld: true, Timeout: timeout})
}

// Handle builds the request from args, sends it and maps the response: a
// status of 400 or more is an isError result carrying the upstream's
// message (bounded); otherwise the body is the result's text and, when it
// is a JSON object, its structuredContent too. The response is read up to
// the byte cap, and a result cut there says so.
func (t *Tool) Handle(ctx context.Context, args map[string]any) (*toolexec.CallToolResult, error) {
	req, err := t.request(ctx, args)
	if err != nil {
		return toolexec.ErrorResult(err.Error()), nil
	}
	resp, err := t.src.client.Do(req)
	if err != nil {
		return nil, t.fail(ctx, err)
	}
	defer func() { _ = resp.Body.Close() }() // read up to its cap; closing only frees the connection
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(t.MaxBytes)+1))
	if err != nil {
		return nil, t.fail(ctx, err)
	}
	truncated := len(body) > t.MaxBytes
	if truncated {
		body = body[:t.MaxBytes]
	}
	if t.secrets != nil {
		body = []byte(t.secrets.Replace(string(body)))
	}
	if resp.StatusCode >= 400 {
		msg := upstreamMessage(body)
		return toolexec.ErrorResult(fmt.Sprintf("upstream answered %d %s: %s", resp.StatusCode, http.StatusText(resp.StatusCode), msg)), nil
	}
	res := &toolexec.CallToolResult{}
	if truncated {
		res.Content = []toolexec.Content{
			toolexec.Text(string(bytes.ToValidUTF8(body, nil))),
			toolexec.Text(fmt.Sprintf("[truncated: the response exceeds %d bytes]", t.MaxBytes)),
		}
		return res, nil
	}
	if ct := resp.Header.Get("Content-Type"); strings.Contains(ct, "json") {
		var obj map[string]any
		if json.Unmarshal(body, &obj) == nil && obj != nil {
			res.StructuredContent = obj
		}
	}
	res.Content = []toolexec.Content{toolexec.Text(string(bytes.ToValidUTF8(body, []byte("\uFFFD"))))}
	return res, nil
}

// upstreamMessage is the error text of a failed upstream call: the
// "message" or "error" member of a JSON body when there is one, else the
// body, bounded.
func upstreamMessage(body []byte) string {
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil {
		for _, k := range []string{"message", "error", "detail", "error_description"} {
			if s, ok := obj[k].(string); ok && s != "" {
				body = []byte(s)
				break
			}
			if m, ok := obj[k].(map[string]any); ok {
				if s, ok := m["message"].(string); ok && s != "" {
					body = []byte(s)
					break
				}
			}
		}
	}
	s := strings.TrimSpace(string(bytes.ToValidUTF8(body, nil)))
	if len(s) > maxErrorMessage {
		s = s[:maxErrorMessage]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	if s == "" {
		s = "(no message)"
	}
	return s
}

func (t *Tool) request(ctx context.Context, args map[string]any) (*http.Request, error) {
	// Path parameters are substituted escaped, so a value cannot add a
	// path segment, a query or change the host.
	var perr error
	path := pathParamRef.ReplaceAllStringFunc(t.Cfg.Path, func(m string) string {
		name := pathParamRef.FindStringSubmatch(m)[1]
		for _, p := range t.Cfg.PathParams {
			if p.Name != name {
				continue
			}
			v, err := params.Value(p, args)
			if err != nil {
				perr = err
				return ""
			}
			if v == nil {
				perr = fmt.Errorf("argument %q is required", name)
				return ""
			}
			seg := fmt.Sprint(v)
			if seg == "." || seg == ".." || seg == "" {
				perr = fmt.Errorf("argument %q must not be empty, \".\" or \"..\"", name)
				return ""
			}
			return url.PathEscape(seg)
		}
		return ""
	})
	if perr != nil {
		return nil, perr
	}
	ref, err := url.Parse(path)
	if err != nil {
		return nil, errors.New("the tool's path does not form a URL")
	}
	u := *t.src.base
	if ref.Path != "" {
		// Join the escaped forms, so an escaped "/" in a path parameter
		// stays inside its segment.
		joined := strings.TrimSuffix(u.EscapedPath(), "/") + "/" + strings.TrimPrefix(ref.EscapedPath(), "/")
		unescaped, err := url.PathUnescape(joined)
		if err != nil {
			return nil, errors.New("the tool's path does not form a URL")
		}
		u.Path, u.RawPath = unescaped, joined
	}
	// The arguments first, then what the file sets, which replaces any
	// argument of the same name (compared case-insensitively: some
	// servers read query names so): a caller never replaces the source's
	// key. validate reports such a parameter.
	configured := u.Query()
	for k, v := range ref.Query() {
		configured[k] = v
	}
	for k, v := range t.src.cfg.QueryParams {
		configured[k] = []string{v}
	}
	q := url.Values{}
	for _, p := range t.Cfg.QueryParams {
		v, err := params.Value(p, args)
		if err != nil {
			return nil, err
		}
		if hasFold(configured, p.Name) {
			continue
		}
		switch v := v.(type) {
		case nil:
		case []any:
			for _, e := range v {
				q.Add(p.Name, fmt.Sprint(e))
			}
		default:
			q.Set(p.Name, fmt.Sprint(v))
		}
	}
	for k, v := range configured {
		q[k] = v
	}
	u.RawQuery = q.Encode()

	var body io.Reader
	hasBody := false
	if t.body != nil || len(t.Cfg.BodyParams) > 0 {
		b, err := t.buildBody(args)
		if err != nil {
			return nil, err
		}
		body, hasBody = bytes.NewReader(b), true
	}
	req, err := http.NewRequestWithContext(ctx, t.Cfg.Method, u.String(), body)
	if err != nil {
		return nil, errors.New("the tool's method or URL is invalid")
	}
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, */*;q=0.5")
	req.Header.Set("User-Agent", "toolexec")
	// As for the query: the arguments, then the configured headers, which
	// replace an argument of the same name.
	for _, p := range t.Cfg.HeaderParams {
		v, err := params.Value(p, args)
		if err != nil {
			return nil, err
		}
		if v != nil {
			s := fmt.Sprint(v)
			if strings.ContainsAny(s, "\r\n") {
				return nil, fmt.Errorf("argument %q must not contain line breaks", p.Name)
			}
			req.Header.Set(p.Name, s)
		}
	}
	for k, v := range t.src.cfg.Headers {
		req.Header.Set(k, v)
	}
	for k, v := range t.Cfg.Headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// hasFold reports whether vals has a key equal to name under Unicode case
// folding.
func hasFold(vals url.Values, name string) bool {
	for k := range vals {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// buildBody is the JSON request body: the body parameters as one object,
// or the requestBody template rendered with them.
func (t *Tool) buildBody(args map[string]any) ([]byte, error) {
	vals := make(map[string]any, len(t.Cfg.BodyParams))
	for _, p := range t.Cfg.BodyParams {
		v, err := params.Value(p, args)
		if err != nil {
			return nil, err
		}
		if v != nil || t.body != nil {
			vals[p.Name] = v
		}
	}
	if t.body == nil {
		return json.Marshal(vals)
	}
	// In the template a string prints JSON-escaped without its quotes, so
	// "{{.name}}" stays one JSON string whatever the argument holds; json
	// prints any value as JSON.
	data := make(map[string]any, len(vals))
	for k, v := range vals {
		if s, ok := v.(string); ok {
			data[k] = escapedString(s)
			continue
		}
		if v == nil {
			data[k] = rawJSON("null")
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		data[k] = rawJSON(b)
	}
	var buf bytes.Buffer
	if err := t.body.Execute(&buf, data); err != nil {
		return nil, errors.New("the request body could not be built from the arguments")
	}
	if !json.Valid(buf.Bytes()) {
		return nil, errors.New("the request body built from the arguments is not JSON")
	}
	return buf.Bytes(), nil
}

// escapedString prints as a JSON string's contents.
type escapedString string

func (s escapedString) String() string {
	b, _ := json.Marshal(string(s))
	return string(b[1 : len(b)-1])
}

// rawJSON prints as itself.
type rawJSON string

func (r rawJSON) String() string { return string(r) }

func jsonFunc(v any) (string, error) {
	switch v := v.(type) {
	case escapedString:
		b, err := json.Marshal(string(v))
		return string(b), err
	case rawJSON:
		return string(v), nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// fail maps a transport error to what the caller sees, without the URL
// (which may hold secrets from the source's queryParams): a refused host,
// a timeout, or a generic failure. The cause, minus the URL, is logged.
func (t *Tool) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	f := Classify(err)
	t.Logger.Warn("http tool: "+f.Log, "tool", t.Cfg.Name, "source", t.src.cfg.Name, "error", f.Cause.Error())
	return &toolexec.ToolError{Message: f.Message, CanRetry: f.CanRetry}
}

// Failure is what a failed request is, for its caller and for the log.
type Failure struct {
	// Message says what went wrong, fit for the caller: it names no host,
	// address or URL.
	Message string
	// Log says it for the server's log, and Cause is the error to log
	// with it (the url.Error's cause, without the URL and its query).
	Log   string
	Cause error
	// CanRetry says the same request may succeed later.
	CanRetry bool
}

// Classify tells a refused request (a host outside the allow-list, a host
// name that resolves to a private address, a redirect that would resend
// the body) from one that failed, in words fit for the caller.
func Classify(err error) Failure {
	var ue *url.Error
	cause := err
	if errors.As(err, &ue) {
		cause = ue.Err
	}
	switch {
	case errors.Is(err, netguard.ErrLocalAddress):
		return Failure{Message: "the upstream request was refused: the upstream host resolves to a private or local network address",
			Log: "upstream host name resolves to a private or local address; set allowPrivateNetworks: true if that is intended", Cause: cause}
	case errors.Is(err, netguard.ErrNotAllowed):
		return Failure{Message: "the upstream request was refused: it targets a host that is not allowed", Log: "upstream host not allowed", Cause: cause}
	case errors.Is(err, errRedirectBody):
		return Failure{Message: "the upstream request was refused: it redirects to another origin and would resend the request body", Log: "redirect refused", Cause: cause}
	}
	return Failure{Message: "the upstream request failed", Log: "upstream request failed", Cause: cause, CanRetry: true}
}
