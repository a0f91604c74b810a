package toolexec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/toolexec/toolexec"
)

// buildMonth builds one month of a region's report and says how many rows
// it has; it stops when ctx ends.
func buildMonth(ctx context.Context, _ string, _ int) (int, error) {
	select {
	case <-time.After(20 * time.Millisecond): // a month of work
		return 40, nil
	case <-ctx.Done(): // the task was cancelled
		return 0, ctx.Err()
	}
}

// A slow tool becomes a task with one option: ToolOptions.TaskSupport. The
// handler is the same function; a caller that can take a task (MCP's
// tasks extension, REST's or OXP's Prefer: respond-async) gets one when the
// call runs longer than the Executor's wait, and polls it, from any
// replica sharing the store. Here a REST client asks for one at once
// (wait=0), polls its Location, and reads the result.
func ExampleToolOptions_taskSupport() {
	reg := toolexec.NewRegistry()
	type ReportIn struct {
		Region string `json:"region" jsonschema:"the sales region"`
		Months int    `json:"months" jsonschema:"how many months back"`
	}

	type ReportOut struct {
		Region string `json:"region"`
		Rows   int    `json:"rows"`
	}

	err := toolexec.AddTool(reg, toolexec.Tool{Name: "sales/report", Description: "Builds a sales report (slow).",
		Options: toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}},
		func(ctx context.Context, in ReportIn) (ReportOut, error) {
			rows := 0
			for month := 1; month <= in.Months; month++ {
				_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: float64(month), Total: float64(in.Months),
					Message: fmt.Sprintf("month %d of %d", month, in.Months)})
				n, err := buildMonth(ctx, in.Region, month) // honours ctx: a cancelled task stops
				if err != nil {
					return ReportOut{}, err
				}
				rows += n
			}
			return ReportOut{Region: in.Region, Rows: rows}, nil
		})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true))))
	defer srv.Close()

	callURL := srv.URL + "/tools/sales/report/call"
	req, _ := http.NewRequest(http.MethodPost, callURL, strings.NewReader(`{"region":"EMEA","months":5}`))
	req.Header.Set("Prefer", "respond-async, wait=0")
	resp, err := srv.Client().Do(req)
	if err != nil {
		panic(err)
	}
	var task struct {
		Status       string          `json:"status"`
		ResultStatus int             `json:"resultStatus"`
		Result       json.RawMessage `json:"result"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&task)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Preference-Applied"), task.Status)

	base, _ := url.Parse(callURL)
	loc, _ := url.Parse(resp.Header.Get("Location")) // ../../tasks/{id}
	statusURL := base.ResolveReference(loc).String()
	for task.Status == "working" {
		time.Sleep(10 * time.Millisecond) // a real client waits Retry-After
		resp, err := srv.Client().Get(statusURL)
		if err != nil {
			panic(err)
		}
		_ = json.NewDecoder(resp.Body).Decode(&task)
		resp.Body.Close()
	}
	fmt.Println(task.Status, task.ResultStatus)
	fmt.Println(string(task.Result))
	// Output:
	// 202 respond-async working
	// completed 200
	// {"content":[{"type":"text","text":"{\"region\":\"EMEA\",\"rows\":200}"}],"structuredContent":{"region":"EMEA","rows":200},"isError":false}
}
