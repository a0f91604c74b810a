package toolexec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolexec/toolexec"
)

// An auth hook names the caller with ContextWithIdentity; a cached tool's result
// is then only ever served to the same caller. Here, in-process calls carry
// the identity in their context.
func ExampleContextWithIdentity() {
	runs := 0
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "balance", Options: toolexec.ToolOptions{Cache: true}},
		toolexec.ToolCallHandlerFunc(func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			runs++
			who, _ := toolexec.IdentityFromContext(ctx)
			return []toolexec.Content{toolexec.Text("balance of " + who)}, false, "", nil
		}))
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	for _, who := range []string{"alice", "alice", "bob"} {
		res, _ := x.Call(toolexec.ContextWithIdentity(context.Background(), who), toolexec.CallRequest{Name: "balance"})
		fmt.Println(res.Text())
	}
	_, _ = x.Call(context.Background(), toolexec.CallRequest{Name: "balance"}) // no identity: never cached
	fmt.Println("handler runs:", runs)
	// Output:
	// balance of alice
	// balance of alice
	// balance of bob
	// handler runs: 3
}

// Validation lists at most MaxValidationFailures failures and counts the
// rest in Omitted.
func ExampleValidateResult_omitted() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "sum", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"array","items":{"type":"integer"}}}}`)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	x := toolexec.New(reg, reg)

	args := `{"n":[` + strings.Repeat(`"x",`, 249) + `"x"]}` // 250 failures
	res, _ := x.Validate(context.Background(), "sum", "", json.RawMessage(args))
	fmt.Println(len(res.Errors), "listed,", res.Omitted, "omitted; first:", res.Errors[0].Path)
	// Output: 100 listed, 150 omitted; first: /n/0
}

// A server that listens on a loopback address turns the DNS-rebinding and
// cross-site request defense on for every surface: a request whose Host is
// not a loopback name (or, when AllowedHosts lists names, not one of them:
// here a local proxy's public name), or whose Origin is another site, is
// refused before anything else.
func ExampleWithRebindingProtection() {
	reg := toolexec.NewRegistry()
	x := toolexec.New(reg, reg,
		toolexec.WithAllowExecute(true),
		toolexec.WithRebindingProtection(toolexec.RebindingProtection{
			AllowedHosts:   []string{"tools.example.com"},     // optional: a local proxy's public name
			AllowedOrigins: []string{"http://localhost:3000"}, // optional: a browser UI elsewhere
		}),
	)
	h := toolexec.NewHandler(x)

	srv := httptest.NewServer(h) // listens on 127.0.0.1
	defer srv.Close()
	for _, host := range []string{"tools.example.com", "evil.example"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/tools", nil)
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		res.Body.Close()
		fmt.Println(host, res.StatusCode)
	}
	// Output:
	// tools.example.com 200
	// evil.example 403
}
