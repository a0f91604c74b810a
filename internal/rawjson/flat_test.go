package rawjson

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var flatSeeds = []string{
	`{"id":4242}`, ` { "a" : 1 , "b" : "x" , "c" : true , "d" : false , "e" : null } `, `{"a":1,"a":2}`, `{}`,
	`{"n":-0}`, `{"n":-12.50}`, `{"n":0.000000000000001}`, `{"s":""}`, `{"s":"a\"b"}`, `{"\u0069d":1}`,
	`{"s":"é"}`, `{"o":{"a":1}}`, `{"l":[1]}`, `{"a":1}x`, `{"a":01}`, `{"a":1,}`, `[1]`, `"x"`, `{"a":1e3}`,
}

// decodeFlat decodes what json.Unmarshal decodes, to the same map, or
// leaves the object to it.
func TestDecodeFlatAgreesWithUnmarshal(t *testing.T) {
	read := 0
	for _, s := range flatSeeds {
		if checkFlat(t, []byte(s)) {
			read++
		}
	}
	assert.Equal(t, 9, read, "the flat objects of the seeds are read without the decoder")
	args, err := DecodeObject([]byte(`{"id":4242,"q":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"id": float64(4242), "q": "x"}, args)
}

func FuzzDecodeFlat(f *testing.F) {
	for _, s := range flatSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkFlat(t, raw)
	})
}

// checkFlat checks decodeFlat on raw against json.Unmarshal and reports
// whether decodeFlat read it.
func checkFlat(t *testing.T, raw []byte) bool {
	t.Helper()
	got, ok := decodeFlat(raw)
	if !ok {
		return false
	}
	var want map[string]any
	require.NoError(t, json.Unmarshal(raw, &want), "%s", raw)
	assert.Equal(t, want, got, "%s", raw)
	return true
}
