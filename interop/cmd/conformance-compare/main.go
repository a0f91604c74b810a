// Command conformance-compare compares a run of the official MCP
// conformance suite with an expected-failures file, for `make conformance`
// (see ../../conformance/run.sh):
//
//	conformance-compare -expected FILE RESULTS_DIR
//
// RESULTS_DIR is the suite's -o directory: one server-<scenario>-<time>
// directory per scenario, each with a checks.json. A scenario fails when one
// of its checks has status FAILURE; a WARNING (a SHOULD the server does not
// follow, such as offering no session id to a stateless server) is printed
// but fails nothing. FILE lists, under "server:", one entry per line: a
// scenario that may fail, or "scenario:check-id", a single check that may.
// The command exits 1 when anything fails that is not listed, or when a
// listed entry no longer fails (so the list only ever shrinks).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// dirName is server-<scenario>-<ISO time with dashes>.
var dirName = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

func main() {
	expectedFile := flag.String("expected", "", "expected-failures file")
	flag.Parse()
	if flag.NArg() != 1 || *expectedFile == "" {
		fmt.Fprintln(os.Stderr, "usage: conformance-compare -expected FILE RESULTS_DIR")
		os.Exit(2)
	}
	expected, err := readExpected(*expectedFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	failed, warned, err := readResults(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	unexpected, stale := compare(expected, failed)
	sort.Strings(warned)
	for _, w := range warned {
		fmt.Println("  warning:", w)
	}
	for _, u := range unexpected {
		fmt.Println("  UNEXPECTED FAILURE:", u)
	}
	for _, s := range stale {
		fmt.Println("  STALE (passes now; remove it from the expected failures):", s)
	}
	fmt.Printf("  %d scenarios, %d failing as expected, %d unexpected failures, %d stale entries\n",
		len(failed), len(expected)-len(stale), len(unexpected), len(stale))
	if len(unexpected)+len(stale) > 0 {
		os.Exit(1)
	}
}

// readExpected reads the entries under "server:".
func readExpected(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // opened for reading: closing it loses nothing
	out := map[string]bool{}
	inServer := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-") {
			inServer = strings.TrimSpace(line) == "server:"
			continue
		}
		if entry, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok && inServer {
			out[strings.TrimSpace(entry)] = true
		}
	}
	return out, sc.Err()
}

// readResults returns, per scenario run, its failed checks (an empty list
// for a scenario that passed), and the warnings of the whole run.
func readResults(dir string) (map[string][]check, []string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	failed := map[string][]check{}
	var warned []string
	for _, e := range entries {
		m := dirName.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		scenario := m[1]
		data, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err != nil {
			return nil, nil, err
		}
		var checks []check
		if err := json.Unmarshal(data, &checks); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		failed[scenario] = []check{}
		for _, c := range checks {
			switch c.Status {
			case "FAILURE":
				failed[scenario] = append(failed[scenario], c)
			case "WARNING":
				warned = append(warned, fmt.Sprintf("%s:%s: %s", scenario, c.ID, c.ErrorMessage))
			}
		}
	}
	if len(failed) == 0 {
		return nil, nil, fmt.Errorf("%s holds no scenario results", dir)
	}
	return failed, warned, nil
}

// compare returns the failed checks expected does not list ("scenario:id:
// message") and the entries of expected that did not fail, both sorted.
func compare(expected map[string]bool, failed map[string][]check) (unexpected, stale []string) {
	for scenario, checks := range failed {
		if expected[scenario] {
			continue
		}
		for _, c := range checks {
			if !expected[scenario+":"+c.ID] {
				unexpected = append(unexpected, fmt.Sprintf("%s:%s: %s", scenario, c.ID, c.ErrorMessage))
			}
		}
	}
	for entry := range expected {
		scenario, id, perCheck := strings.Cut(entry, ":")
		if !perCheck {
			if len(failed[scenario]) == 0 {
				stale = append(stale, entry)
			}
			continue
		}
		found := false
		for _, c := range failed[scenario] {
			found = found || c.ID == id
		}
		if !found {
			stale = append(stale, entry)
		}
	}
	sort.Strings(unexpected)
	sort.Strings(stale)
	return unexpected, stale
}
