package httptool

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHostAllowed(t *testing.T) {
	allowed := []string{"api.example.com", "*.cdn.example.com"}
	for host, want := range map[string]bool{
		"api.example.com":      true,
		"API.Example.com.":     true,
		"x.cdn.example.com":    true,
		"cdn.example.com":      false,
		"evil.com":             false,
		"api.example.com.evil": false,
		"example.com":          false,
		"127.0.0.1":            false,
	} {
		assert.Equal(t, want, hostAllowed(host, allowed), host)
	}
}
