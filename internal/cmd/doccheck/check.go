package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolexec/toolexec/internal/docblocks"
)

// source is a compiled Go file, by lines.
type source struct {
	name  string
	lines []string
}

// document is a Markdown file and its fenced blocks.
type document struct {
	name   string
	text   string
	blocks []docblocks.Block
}

// check runs both checks over the tracked files (slash-separated paths
// relative to root) and returns the problems found, as "FILE:LINE: what".
func check(root string, tracked []string) ([]string, error) {
	var sources []source
	var docs []document
	for _, name := range tracked {
		switch {
		case compiled(name):
			data, err := os.ReadFile(filepath.Join(root, name))
			if err != nil {
				return nil, err
			}
			if !ignored(data) {
				sources = append(sources, source{name, strings.Split(string(data), "\n")})
			}
		case documented(name):
			data, err := os.ReadFile(filepath.Join(root, name))
			if err != nil {
				return nil, err
			}
			blocks, err := docblocks.All(filepath.Join(root, name))
			if err != nil {
				return nil, err
			}
			docs = append(docs, document{name, string(data), blocks})
		}
	}
	var problems []string
	for _, d := range docs {
		problems = append(problems, checkGo(d, sources)...)
	}
	problems = append(problems, checkLinks(docs, tracked)...)
	return problems, nil
}

// checkGo returns a problem for each ```go block of d that is not in one
// of the sources.
func checkGo(d document, sources []source) []string {
	var problems []string
	for _, b := range d.blocks {
		if b.Lang != "go" {
			continue
		}
		block := dedent(b.Text)
		if len(block) == 0 {
			problems = append(problems, fmt.Sprintf("%s:%d: an empty go block", d.name, b.Line))
			continue
		}
		var best source
		bestLine, bestRun := 0, 0
		for _, s := range sources {
			for i := range s.lines {
				n := run(block, s.lines, i)
				if n == len(block) {
					bestRun = n
					break
				}
				if n > bestRun {
					best, bestLine, bestRun = s, i+1, n
				}
			}
			if bestRun == len(block) {
				break
			}
		}
		if bestRun == len(block) {
			continue
		}
		msg := fmt.Sprintf("%s:%d: this go block (%d lines) is not in any compiled .go file", d.name, b.Line, len(block))
		if bestRun > 0 {
			msg += fmt.Sprintf("; its first %d lines are %s:%d, then %q differs", bestRun, best.name, bestLine, block[bestRun])
		}
		problems = append(problems, msg)
	}
	return problems
}

// dedent splits a block into lines without their common leading
// whitespace, and without blank lines at either end. Blank lines in the
// middle become empty.
func dedent(text string) []string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = indent, false
			continue
		}
		for !strings.HasPrefix(indent, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			out[i] = l[len(prefix):]
		}
	}
	return out
}

// run returns how many lines of block, from its first, are lines[at:],
// each with the same leading whitespace added (the indentation of the
// block's first line in the file).
func run(block, lines []string, at int) int {
	l := lines[at]
	if !strings.HasSuffix(l, block[0]) {
		return 0
	}
	indent := l[:len(l)-len(block[0])]
	if strings.Trim(indent, " \t") != "" {
		return 0
	}
	n := 1
	for ; n < len(block) && at+n < len(lines); n++ {
		want := indent + block[n]
		if block[n] == "" {
			want = ""
		}
		if lines[at+n] != want {
			break
		}
	}
	return n
}
