package jsonwalk

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The walkers must split every valid object and array exactly as
// encoding/json does: same members, same values, byte for byte.
func FuzzWalkersSplitAsEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `{"a":1}`, `[1,"x",null]`,
		`{ "a" : [ 1 , { "b" : "}" } ] , "c" : "\"]" , "d" : -1.5e3 , "e" : true }`,
		`{"a":1,"a":2}`, `{"\u0061":"\\"}`, `[[],{},[{}],"[",""]`, " [ 0 ,\n{\"\":\"\"} ] ",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := bytes.TrimSpace([]byte(s))
		if !json.Valid(data) || len(data) == 0 {
			return
		}
		switch data[0] {
		case '{':
			var want map[string]json.RawMessage
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatalf("encoding/json refused %q: %v", data, err)
			}
			got := map[string]json.RawMessage{}
			for it := Members(data); it.Next(); {
				var name string
				if err := json.Unmarshal(it.Key, &name); err != nil {
					t.Fatalf("key %q of %q is not a JSON string", it.Key, data)
				}
				if !it.Is(name) {
					t.Fatalf("key %q of %q does not match its own name %q", it.Key, data, name)
				}
				got[name] = it.Val
			}
			if len(got) != len(want) {
				t.Fatalf("%q: %d members, encoding/json reads %d", data, len(got), len(want))
			}
			for k, v := range want {
				if !bytes.Equal(got[k], v) {
					t.Fatalf("%q: member %q is %q, encoding/json reads %q", data, k, got[k], v)
				}
			}
		case '[':
			var want []json.RawMessage
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatalf("encoding/json refused %q: %v", data, err)
			}
			var got []json.RawMessage
			for it := Elements(data); it.Next(); {
				got = append(got, it.Val)
			}
			if len(got) != len(want) {
				t.Fatalf("%q: %d elements, encoding/json reads %d", data, len(got), len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("%q: element %d is %q, encoding/json reads %q", data, i, got[i], want[i])
				}
			}
		}
	})
}
