package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompareFindsUnexpectedFailuresAndStaleEntries(t *testing.T) {
	failed := map[string][]check{
		"tools-list":       {},
		"prompts-list":     {{ID: "prompts-list", Status: "FAILURE"}},
		"caching":          {{ID: "sep-2549-prompts", Status: "FAILURE"}, {ID: "sep-2549-tools", Status: "FAILURE", ErrorMessage: "no ttlMs"}},
		"server-stateless": {{ID: "a", Status: "FAILURE"}},
		"logging":          {},
	}
	expected := map[string]bool{
		"prompts-list":             true, // fails wholesale: expected
		"caching:sep-2549-prompts": true,
		"server-stateless:a":       true,
		"logging":                  true, // passes now: stale
		"caching:gone":             true, // never failed: stale
	}
	unexpected, stale := compare(expected, failed)
	assert.Equal(t, []string{"caching:sep-2549-tools: no ttlMs"}, unexpected)
	assert.Equal(t, []string{"caching:gone", "logging"}, stale)
}

func TestResultsAndExpectedFilesAreRead(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "server-tools-call-error-2026-11-24T12-23-08-308Z")
	require.NoError(t, os.Mkdir(scenario, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(scenario, "checks.json"),
		[]byte(`[{"id":"x","status":"FAILURE","errorMessage":"m"},{"id":"y","status":"WARNING"},{"id":"z","status":"SUCCESS"}]`), 0o644))
	failed, warned, err := readResults(dir)
	require.NoError(t, err)
	assert.Equal(t, map[string][]check{"tools-call-error": {{ID: "x", Status: "FAILURE", ErrorMessage: "m"}}}, failed)
	assert.Len(t, warned, 1)

	file := filepath.Join(dir, "expected.yml")
	require.NoError(t, os.WriteFile(file, []byte("# c\nserver:\n  - a # why\n  - b:c\nclient:\n  - d\n"), 0o644))
	expected, err := readExpected(file)
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{"a": true, "b:c": true}, expected)
}
