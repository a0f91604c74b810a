package main

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeQuickStartIsThisProgram keeps the README's quick start honest:
// it must be this file, word for word, so that it compiles whenever the
// module does.
func TestReadmeQuickStartIsThisProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)```go\n(package main\n.*?)```").FindSubmatch(readme)
	require.NotNil(t, m, "README.md has no ```go block starting with package main")

	program, err := os.ReadFile("main.go")
	require.NoError(t, err)
	require.Equal(t, string(program), string(m[1]), "README.md's quick start and examples/quickstart/main.go differ")
}
