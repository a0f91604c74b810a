package oauth_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/docblocks"
	"github.com/toolexec/toolexec/oauth"
)

// TestDocsAuthPrintsWhatTheTestsRun: docs/auth.md closes every code
// fence; every file it prints (a block marked <!-- file: PATH -->) is that
// file of the repository as it is; every provider's oauth.Config it prints
// (<!-- settings: NAME -->) is the one this package's tests check that
// provider's tokens with (issuer and resources aside, which the examples
// name): the token-shape tests' for Dex, Keycloak, Entra ID, Auth0 and
// Okta, the real oidc-provider's for the standards-following provider.
func TestDocsAuthPrintsWhatTheTestsRun(t *testing.T) {
	blocks, err := docblocks.Read(filepath.Join("..", "docs", "auth.md"))
	require.NoError(t, err)

	files := docblocks.Find(blocks, "file")
	require.Contains(t, files, "oauth/testdata/dex.yaml")
	require.Contains(t, files, "internal/oidcprovider/config.mjs")
	for path, b := range files {
		want, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(path)))
		require.NoError(t, err, path)
		assert.Equal(t, string(want), b.Text, "docs/auth.md:%d prints %s", b.Line, path)
	}

	settings := docblocks.Find(blocks, "settings")
	want := map[string]func(*oauth.Config){"standards": standardSettings}
	for _, p := range providers {
		want[strings.ReplaceAll(strings.ToLower(p.name), " ", "-")] = p.config
	}
	for name, set := range want {
		b, ok := settings[name]
		if !assert.True(t, ok, "docs/auth.md prints no settings for %s", name) {
			continue
		}
		var printed, tested oauth.Config
		require.NoError(t, docblocks.Literal(b.Text, &printed), "docs/auth.md:%d", b.Line)
		set(&tested)
		assert.NotEmpty(t, printed.Issuer, name)
		assert.Len(t, printed.Resources, 1, name)
		printed.Issuer, printed.Resources = "", nil
		assert.Equal(t, tested, printed, "docs/auth.md:%d, the settings for %s", b.Line, name)
	}
	assert.Len(t, settings, len(want), "every settings block is checked")
}
