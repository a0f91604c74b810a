package tooldef

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

func TestRows_CapsAndNumbers(t *testing.T) {
	r := NewRows(2, 1000)
	assert.True(t, r.Add([]byte(`{"n":1,"big":12345678901234567890,"f":1.5,"exp":1e3}`)))
	assert.True(t, r.Add([]byte(`{"n":2}`)))
	assert.False(t, r.Add([]byte(`{"n":3}`)), "past maxRows")
	assert.False(t, r.Add([]byte(`{"n":4}`)), "and every later row")
	res := r.Result()
	sc := res.StructuredContent.(map[string]any)
	assert.Equal(t, float64(2), sc["rowCount"])
	assert.Equal(t, true, sc["truncated"])
	first := sc["rows"].([]any)[0].(map[string]any)
	assert.Equal(t, float64(1), first["n"])
	assert.Equal(t, json.Number("12345678901234567890"), first["big"], "an integer beyond int64 stays exact")
	assert.Equal(t, 1.5, first["f"])
	assert.Equal(t, float64(1000), first["exp"])
	require.Len(t, res.Content, 3)
	assert.Equal(t, res.Text()[len(res.Text())-len("[truncated: more than 2 rows; only the first 2 are returned]"):], "[truncated: more than 2 rows; only the first 2 are returned]")

	r = NewRows(10, 20)
	assert.True(t, r.Add([]byte(`{"a":"0123456789"}`)))
	assert.False(t, r.Add([]byte(`{"b":1}`)), "past maxBytes")
	assert.Equal(t, "the rows exceed 20 bytes; only the first 1 rows are returned", r.Result().StructuredContent.(map[string]any)["message"])
}

func TestCaps(t *testing.T) {
	rows, bytes := Caps(&config.Tool{})
	assert.Equal(t, 1000, rows)
	assert.Equal(t, 1<<20, bytes)
	_, bytes = Caps(&config.Tool{TaskSupport: config.TaskOptional})
	assert.Equal(t, 128<<10, bytes, "a task keeps at most 512 KiB of result")
	rows, bytes = Caps(&config.Tool{MaxRows: 5, MaxBytes: 7})
	assert.Equal(t, 5, rows)
	assert.Equal(t, 7, bytes)
}
