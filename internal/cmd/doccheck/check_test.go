package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree writes files under a temporary root and returns it with their
// names, as git would list them.
func tree(t *testing.T, files map[string]string) (string, []string) {
	t.Helper()
	root := t.TempDir()
	var names []string
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		names = append(names, name)
	}
	return root, names
}

const exampleFile = `package p

func ExampleF() {
	x := f(1)
	if x > 0 {
		g(x)
	}

	h()
	// Output:
}
`

func TestGoBlocksMustBeQuotedFromCompiledFiles(t *testing.T) {
	root, names := tree(t, map[string]string{
		"p/example_test.go": exampleFile,
		"p/testdata/x.go":   "package x\n\nfunc only() {}\n",
		"p/skip.go":         "//go:build ignore\n\npackage p\n\nfunc skipped() {}\n",
		"doc.md": "# Doc\n\n" +
			"```go\nx := f(1)\nif x > 0 {\n\tg(x)\n}\n\nh()\n```\n\n" + // the body, dedented: found
			"- in a list:\n\n  ```go\n  \tg(x)\n  }\n  ```\n\n" + // indented in the file more than here: found
			"```go\nx := f(1)\nif x > 0 {\n\tg(y)\n}\n```\n\n" + // line 3 differs
			"```go\nfunc only() {}\n```\n\n" + // only under testdata
			"```go\nfunc skipped() {}\n```\n\n" + // only in an ignored file
			"```go\nx := f(1)\n    if x > 0 {\n```\n\n" + // spaces where the file has a tab
			"```go\n\n```\n" +
			"```sh\nnot go\n```\n",
	})
	problems, err := check(root, names)
	require.NoError(t, err)
	assert.Equal(t, []string{
		`doc.md:19: this go block (4 lines) is not in any compiled .go file; its first 2 lines are p/example_test.go:4, then "\tg(y)" differs`,
		`doc.md:26: this go block (1 lines) is not in any compiled .go file`,
		`doc.md:30: this go block (1 lines) is not in any compiled .go file`,
		`doc.md:34: this go block (2 lines) is not in any compiled .go file; its first 1 lines are p/example_test.go:4, then "    if x > 0 {" differs`,
		`doc.md:39: an empty go block`,
	}, problems)
}

func TestLinksMustLeadToTrackedFilesAndHeadings(t *testing.T) {
	root, names := tree(t, map[string]string{
		"README.md": "# Top\n\n" +
			"See [the guide](docs/guide.md), [its part](docs/guide.md#the-toolscall-method), [a dir](docs), [code](p/a.go#L3).\n" +
			"See [gone](docs/gone.md) and [no part](docs/guide.md#nowhere) and ![img](docs/pic.png).\n" +
			"Not links: `[x](nowhere.md)` and\n\n```md\n[y](nowhere.md)\n```\n\n" +
			"[ref]: docs/guide.md#second-1\n[bad]: ./missing.md\n" +
			"<a href=\"https://example.com/x\">out</a> [web](https://example.com/y) [mail](mailto:a@b)\n",
		"docs/guide.md": "# Guide\n\n## The `tools/call` method\n\n## Second\n\n## Second\n\n<a id=\"custom\"></a>\n\n" +
			"Back to [top](../README.md#top), [here](#custom), [there](#second), [wrong](#The-tools-call-method).\n",
		"p/a.go": "package p\n",
	})
	problems, err := check(root, names)
	require.NoError(t, err)
	assert.Equal(t, []string{
		`README.md:4: the link "docs/gone.md" leads to docs/gone.md, which is not in the repository`,
		`README.md:4: the link "docs/guide.md#nowhere" leads to no heading #nowhere in docs/guide.md`,
		`README.md:4: the link "docs/pic.png" leads to docs/pic.png, which is not in the repository`,
		`README.md:12: the link "./missing.md" leads to missing.md, which is not in the repository`,
		`docs/guide.md:11: the link "#The-tools-call-method" leads to no heading #The-tools-call-method in docs/guide.md`,
	}, problems)
}

func TestSlugify(t *testing.T) {
	for h, want := range map[string]string{
		"`http.Server` settings for hosts":                              "httpserver-settings-for-hosts",
		"`subscriptions/listen` and `notifications/tools/list_changed`": "subscriptionslisten-and-notificationstoolslist_changed",
		"Declarative tools (`toolexec`)":                                "declarative-tools-toolexec",
		"Tasks: `Prefer: respond-async`":                                "tasks-prefer-respond-async",
		"See [the spec](https://example.com) first":                     "see-the-spec-first",
	} {
		assert.Equal(t, want, slugify(h), h)
	}
}
