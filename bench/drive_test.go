package bench

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDriveDrivesOnlyLoopbackServers(t *testing.T) {
	opts := LoadOptions{Clients: 1, Duration: time.Millisecond, MaxCalls: 1}
	for _, base := range []string{"http://192.0.2.1:80", "http://example.com", "http://localhost.example:80"} {
		_, err := Drive(base, Request{Method: http.MethodGet, Path: "/"}, opts)
		require.Error(t, err, base)
		assert.Contains(t, err.Error(), "only drives loopback servers", base)
	}
}
