package script_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/script"
)

// A TypeScript file compiled once, and called on the runner's pooled
// runtimes with a tool's arguments.
func ExampleCompile() {
	dir, _ := os.MkdirTemp("", "script-example-")
	defer func() { _ = os.RemoveAll(dir) }()
	_ = os.WriteFile(filepath.Join(dir, "greet.ts"), []byte(`
type Payload = { inputs: { name: string }; tool: string };
export default async ({ inputs, tool }: Payload) => ({ greeting: "Hello, " + inputs.name, tool });
`), 0o600)

	p, err := script.Compile(script.Source{Path: filepath.Join(dir, "greet.ts"), Dir: dir})
	if err != nil {
		fmt.Println(err) // each problem as file:line:column: message
		return
	}
	r := p.Runner(script.Options{Tool: "greet"})
	out, err := r.CallInputs(context.Background(), map[string]any{"name": "Ada"})
	fmt.Println(string(out), err)
	// Output: {"greeting":"Hello, Ada","tool":"greet"} <nil>
}
