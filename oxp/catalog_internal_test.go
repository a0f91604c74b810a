package oxp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMapNameSplitsOnTheLastSeparator(t *testing.T) {
	cases := []struct {
		name, base, oxpName string
	}{
		{"Calculator.Add", "Calculator.Add", "Calculator_Add"},
		{"image/resize", "image.resize", "image_resize"},
		{"add", "Tools.add", "Tools_add"},
		{"a/b.c", "a_b.c", "a_b_c"},
		{"acme/images/resize-v2", "acme_images.resize-v2", "acme_images_resize-v2"},
		{"snake_case.tool_1", "snake_case.tool_1", "snake_case_tool_1"},
		{strings.Repeat("k", 30) + "." + strings.Repeat("t", 33), strings.Repeat("k", 30) + "." + strings.Repeat("t", 33), strings.Repeat("k", 30) + "_" + strings.Repeat("t", 33)},
	}
	for _, tc := range cases {
		base, oxpName, ok := mapName(tc.name, DefaultToolkit)
		if assert.True(t, ok, tc.name) {
			assert.Equal(t, tc.base, base, tc.name)
			assert.Equal(t, tc.oxpName, oxpName, tc.name)
			assert.Regexp(t, `^[A-Za-z0-9_-]{1,64}$`, oxpName)
		}
	}
}

func TestMapNameRefusesNamesOXPCannotExpress(t *testing.T) {
	for _, name := range []string{
		"", ".", "/", "a//b", "a..b", ".a", "a.", "/a", "a/",
		"has space", "tab\there", "café.order", "a@b", "a:b", "a%2Fb", "a+b",
		strings.Repeat("k", 30) + "." + strings.Repeat("t", 34), // OXP name of 65 bytes
		strings.Repeat("t", 60),                                 // "Tools_" + 60 bytes
	} {
		_, _, ok := mapName(name, DefaultToolkit)
		assert.False(t, ok, "%q", name)
	}
}

func TestExpandVersionAppliesOXPShorthand(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1.0.0", "0": "0.0.0", "12": "12.0.0", "1.2": "1.2.0",
		"1.2.3": "1.2.3", "01": "01", "1.02": "1.02", "x": "x", "1.0.0-rc.1": "1.0.0-rc.1", "v1": "v1",
	} {
		assert.Equal(t, want, expandVersion(in), in)
	}
}
