package redistool

import (
	"encoding/json"
	"math"
	"math/big"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestJSONValue(t *testing.T) {
	big1, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	for _, c := range []struct {
		in   any
		want string
	}{
		{nil, `null`},
		{"text", `"text"`},
		{"\xff", `"/w=="`},
		{int64(42), `42`},
		{int64(1) << 60, `1152921504606846976`},
		{1.25, `1.25`},
		{math.Inf(1), `"inf"`},
		{math.Inf(-1), `"-inf"`},
		{math.NaN(), `"nan"`},
		{big1, `123456789012345678901234567890`},
		{true, `true`},
		{[]any{"a", int64(1), []any{nil}}, `["a",1,[null]]`},
		{map[any]any{"b": int64(2), int64(1): "one"}, `{"1":"one","b":2}`},
	} {
		b, err := json.Marshal(jsonValue(c.in))
		assert.NoError(t, err)
		assert.Equal(t, c.want, string(b), "%#v", c.in)
	}
}

func TestWord(t *testing.T) {
	assert.Equal(t, "a b\r\n", word("a b\r\n"))
	assert.Equal(t, "-7", word(int64(-7)))
	assert.Equal(t, "0.5", word(0.5))
	assert.Equal(t, "1", word(true))
	assert.Equal(t, "0", word(false))
}

// A read past the cap hands on none of its bytes, so that a reply whose
// last bytes arrive in that read cannot complete.
func TestCappedConn(t *testing.T) {
	client, server := net.Pipe()
	defer server.Close()
	c := &cappedConn{Conn: client, max: 50}
	go func() {
		_, _ = server.Write(make([]byte, 40))
		_, _ = server.Write(make([]byte, 20))
	}()
	buf := make([]byte, 100)
	n, err := c.Read(buf)
	assert.NoError(t, err)
	assert.Equal(t, 40, n)
	n, err = c.Read(buf)
	assert.ErrorIs(t, err, errReplyTooLarge)
	assert.Zero(t, n)

	// Writing a command starts a new count.
	go func() {
		buf := make([]byte, 10)
		_, _ = server.Read(buf)
		_, _ = server.Write(make([]byte, 45))
	}()
	_, err = c.Write([]byte("PING\r\n"))
	assert.NoError(t, err)
	n, err = c.Read(buf)
	assert.NoError(t, err)
	assert.Equal(t, 45, n)
}
