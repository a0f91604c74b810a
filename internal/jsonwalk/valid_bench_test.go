package jsonwalk

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkValid compares Valid with encoding/json.Valid on an MCP
// tools/call body and on 100 KB bodies of numbers and of text.
func BenchmarkValid(b *testing.B) {
	numbers := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{"values":[`)
	for i := 0; len(numbers) < 100<<10; i++ {
		if i > 0 {
			numbers = append(numbers, ',')
		}
		numbers = strconv.AppendInt(numbers, int64((i*7919)%100000-50000), 10)
	}
	numbers = append(numbers, "]}}}"...)
	text := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":` +
		strconv.Quote(strings.Repeat("The quick brown fox jumps over the lazy dog, \"twice\".\n", 100<<10/55)) + `}}}`)
	for _, body := range []struct {
		name string
		data []byte
	}{
		{"mcp_call_97B", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}}`)},
		{"numbers_100KB", numbers},
		{"text_100KB", text},
	} {
		if !json.Valid(body.data) || !Valid(body.data) {
			b.Fatalf("%s is not valid JSON", body.name)
		}
		for _, v := range []struct {
			name  string
			valid func([]byte) bool
		}{{"jsonwalk", Valid}, {"encoding_json", json.Valid}} {
			b.Run(body.name+"/"+v.name, func(b *testing.B) {
				b.SetBytes(int64(len(body.data)))
				b.ReportAllocs()
				for b.Loop() {
					v.valid(body.data)
				}
			})
		}
	}
}
