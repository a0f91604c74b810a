package docblocks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadFindsMarkedBlocksAndRefusesAnOpenFence(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.md")
	require.NoError(t, os.WriteFile(good, []byte("# t\n\n<!-- file: a/b.yaml -->\n```yaml\nx: 1\n```\n\n```sh\nunmarked\n```\n<!-- settings: p -->\n```go\nT{A: \"a\"}\n```\n"), 0o600))
	blocks, err := Read(good)
	require.NoError(t, err)
	require.Len(t, blocks, 2)
	assert.Equal(t, Block{Kind: "file", Name: "a/b.yaml", Lang: "yaml", Text: "x: 1\n", Line: 4}, blocks[0])
	assert.Equal(t, "settings", blocks[1].Kind)

	open := filepath.Join(dir, "open.md")
	require.NoError(t, os.WriteFile(open, []byte("```text\nnever closed\n## Heading\n"), 0o600))
	_, err = Read(open)
	assert.ErrorContains(t, err, "never closed")

	stray := filepath.Join(dir, "stray.md")
	require.NoError(t, os.WriteFile(stray, []byte("<!-- file: x -->\ntext\n"), 0o600))
	_, err = Read(stray)
	assert.ErrorContains(t, err, "not followed by a fenced block")
}

func TestAllReadsEveryBlockIndentedOrNot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	require.NoError(t, os.WriteFile(path, []byte("# t\n\n```go\nx := 1\n```\n\n- item:\n\n  ```go\n  f(x)\n  \tg()\n\n  ```\n<!-- file: a.sh -->\n```sh\necho\n```\n````md\n```go\nnot a block\n```\n````\n"), 0o600))
	blocks, err := All(path)
	require.NoError(t, err)
	require.Len(t, blocks, 4)
	assert.Equal(t, Block{Lang: "go", Text: "x := 1\n", Line: 3}, blocks[0])
	assert.Equal(t, Block{Lang: "go", Text: "f(x)\n\tg()\n\n", Line: 9}, blocks[1], "the list item's indentation is removed")
	assert.Equal(t, Block{Kind: "file", Name: "a.sh", Lang: "sh", Text: "echo\n", Line: 15}, blocks[2])
	assert.Equal(t, Block{Lang: "md", Text: "```go\nnot a block\n```\n", Line: 18}, blocks[3], "a longer fence holds shorter ones")

	marked, err := Read(path)
	require.NoError(t, err)
	assert.Equal(t, blocks[2:3], marked)
}

type inner struct{ Name string }

type target struct {
	S    string
	L    []string
	B    bool
	N    int
	P    *inner
	Skip string
}

func TestLiteral(t *testing.T) {
	var got target
	require.NoError(t, Literal(`pkg.T{
	S: "s", // a comment
	L: []string{"a", "b // not a comment"},
	B: true,
	N: 3,
	P: &pkg.Inner{Name: "n"},
}`, &got))
	assert.Equal(t, target{S: "s", L: []string{"a", "b // not a comment"}, B: true, N: 3, P: &inner{Name: "n"}}, got)
	for _, bad := range []string{`pkg.T{S: os.Getenv("X")}`, `pkg.T{Nope: "x"}`, `pkg.T{"positional"}`, `pkg.T{N: "x"}`} {
		assert.Error(t, Literal(bad, &target{}), bad)
	}
}
