package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestConfigureGCLeavesGOGCToTheEnvironment(t *testing.T) {
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })

	configureGC(func(string) (string, bool) { return "", false })
	assert.Equal(t, defaultGCPercent, debug.SetGCPercent(100), "GOGC unset: the command's default")

	configureGC(func(k string) (string, bool) { return "50", k == "GOGC" })
	assert.Equal(t, 100, debug.SetGCPercent(100), "GOGC set: the runtime's reading of it stands")
}
