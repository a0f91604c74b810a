// Command doccheck is make lint's check of the repository's Markdown
// documents. Run from the repository's root, it reads the files git tracks
// and reports, as FILE:LINE, every
//
//   - ```go block that is not, once dedented, a contiguous run of lines of
//     a tracked .go file that the go command compiles (an Example function
//     in a _test.go file, or a program under examples/), so that the Go a
//     document shows compiles whenever its module does;
//   - relative link whose file, or heading (#anchor) in a Markdown file,
//     does not exist.
//
// It exits with status 1 when it reports anything.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"sort"
	"strings"
)

func main() {
	tracked, err := trackedFiles()
	if err != nil {
		fmt.Fprintln(os.Stderr, "doccheck:", err)
		os.Exit(2)
	}
	problems, err := check(".", tracked)
	if err != nil {
		fmt.Fprintln(os.Stderr, "doccheck:", err)
		os.Exit(2)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
}

// trackedFiles lists the files git tracks in the working tree (slash
// separated, relative to the current directory, the repository's root).
func trackedFiles() ([]string, error) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var files []string
	for f := range strings.SplitSeq(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	return files, nil
}

// compiled reports whether the go command builds the file at name (by its
// path): not under a testdata directory, nor one whose name starts with
// "." or "_".
func compiled(name string) bool {
	if !strings.HasSuffix(name, ".go") {
		return false
	}
	for dir := range strings.SplitSeq(path.Dir(name), "/") {
		if dir == "testdata" || strings.HasPrefix(dir, ".") && dir != "." || strings.HasPrefix(dir, "_") {
			return false
		}
	}
	return true
}

// ignored reports whether a Go source file opts out of every build with a
// //go:build ignore line.
func ignored(src []byte) bool {
	for line := range bytes.Lines(src) {
		if string(bytes.TrimSpace(line)) == "//go:build ignore" {
			return true
		}
		if bytes.HasPrefix(line, []byte("package ")) {
			return false
		}
	}
	return false
}

// documented reports whether doccheck reads the Markdown file at name: a
// document of the repository's own, not one under testdata.
func documented(name string) bool {
	return strings.HasSuffix(name, ".md") && !strings.Contains("/"+name, "/testdata/")
}
