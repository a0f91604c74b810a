package httptool

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWithoutParams(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"key=s&page=2", "page=2"},
		{"KEY=s&k%65y=s&page=2&key", "page=2"},
		{"page=2&q=key", "page=2&q=key"},
		{"", ""},
	} {
		assert.Equal(t, c.want, withoutParams(c.in, []string{"key"}), c.in)
	}
	assert.Equal(t, "key=s", withoutParams("key=s", nil))
}
