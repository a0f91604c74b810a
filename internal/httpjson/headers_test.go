package httpjson

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSharedHeadersStayEachResponsesOwn: values shared by Headers never
// change under a response that adds to, sets or deletes its headers, and
// the zero value sets the same headers without sharing.
func TestSharedHeadersStayEachResponsesOwn(t *testing.T) {
	for name, hd := range map[string]Headers{"shared": NewHeaders(), "zero": {}} {
		t.Run(name, func(t *testing.T) {
			first := http.Header{}
			hd.Set(first)
			first.Add("Content-Type", "text/plain")
			first.Add("X-Content-Type-Options", "other")
			second := http.Header{}
			hd.SetJSON(second)
			hd.SetNoSniff(second)
			second.Set("Content-Type", "text/plain")
			second.Del("X-Content-Type-Options")
			third := http.Header{}
			hd.Set(third)
			assert.Equal(t, []string{"application/json"}, third["Content-Type"])
			assert.Equal(t, []string{"nosniff"}, third["X-Content-Type-Options"])
			assert.Equal(t, []string{"application/json", "text/plain"}, first["Content-Type"])
			assert.Equal(t, []string{"nosniff", "other"}, first["X-Content-Type-Options"])
		})
	}
}
