package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An upstream that echoes the request is answered back with its secrets
// redacted, and only its secrets: values from the environment and
// credentials by name, never ordinary header or query values.
func TestHTTP_OnlySecretsAreRedactedFromEchoes(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"headers": r.Header, "query": r.URL.RawQuery})
	}))
	t.Cleanup(up.Close)
	const token, tenant = "tok-0123456789abcdef", "acme-corp-42"
	set := build(t, `
sources:
  api:
    kind: http
    baseUrl: `+up.URL+`
    headers:
      Content-Type: application/json
      Accept: application/vnd.example+json
      X-Tenant: tenant-${TENANT}
      X-Api-Key: literal-key-1234567
      Authorization: Bearer ${API_TOKEN}
    queryParams:
      format: pretty-printed
      api_key: ${API_TOKEN}
tools:
  echo:
    kind: http
    source: api
    method: GET
    path: /echo
    description: echoes the request
    headers:
      X-Request-Source: declarative-tools
`, nil, map[string]string{"API_TOKEN": token, "TENANT": tenant})
	x := executor(set, Options{})
	res, err := call(t, x, "echo", map[string]any{})
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	text := res.Text()
	for _, kept := range []string{"application/json", "application/vnd.example+json", "pretty-printed", "declarative-tools", `"tenant-[redacted]"`} {
		assert.Contains(t, text, kept)
	}
	for _, secret := range []string{token, tenant, "literal-key-1234567"} {
		assert.NotContains(t, text, secret)
	}
	assert.Contains(t, text, `"Authorization":["[redacted]"]`, "a credential header is redacted whole")
}
