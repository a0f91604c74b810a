package server

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRedactingHandler_EveryStringReachingTheLog(t *testing.T) {
	var buf bytes.Buffer
	redact := strings.NewReplacer("hunter2", "${PW}").Replace
	logger := redactLogger(slog.New(slog.NewTextHandler(&buf, nil)), redact)
	logger.With("pre", "a hunter2").WithGroup("g").Warn("msg hunter2",
		"s", "hunter2", "err", errors.New("dial hunter2"), "n", 3,
		slog.Group("inner", "v", "hunter2"), "any", []string{"hunter2"})
	out := buf.String()
	assert.NotContains(t, out, "hunter2")
	for _, want := range []string{`msg="msg ${PW}"`, `pre="a ${PW}"`, `g.s=${PW}`, `g.err="dial ${PW}"`, "g.n=3", `g.inner.v=${PW}`, `g.any=[${PW}]`} {
		assert.Contains(t, out, want)
	}
	assert.Nil(t, redactLogger(nil, redact))
	assert.NoError(t, redactError(nil, redact))
	assert.EqualError(t, redactError(errors.New("x hunter2"), redact), "x ${PW}")
}
