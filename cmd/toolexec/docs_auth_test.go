package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
	"golang.org/x/crypto/bcrypt"

	"github.com/toolexec/toolexec/internal/docblocks"
	"github.com/toolexec/toolexec/oauth"
)

// dexConfig mirrors the configuration types of Dex (cmd/dex/config.go and
// storage.Client, at github.com/dexidp/dex ab64ed77, the version
// docs/auth.md names): every field Dex reads, so that decoding a file
// with unknown fields refused (as Dex does with its
// ConfigDisallowUnknownFields flag) finds a misspelt or invented one.
// Sections toolexec's set-up does not use are taken whole.
type dexConfig struct {
	Issuer  string `json:"issuer"`
	Storage struct {
		Type   string          `json:"type"`
		Config json.RawMessage `json:"config"`
	} `json:"storage"`
	Web struct {
		HTTP           string            `json:"http"`
		HTTPS          string            `json:"https"`
		Headers        map[string]string `json:"headers"`
		TLSCert        string            `json:"tlsCert"`
		TLSKey         string            `json:"tlsKey"`
		TLSMinVersion  string            `json:"tlsMinVersion"`
		TLSMaxVersion  string            `json:"tlsMaxVersion"`
		AllowedOrigins []string          `json:"allowedOrigins"`
		AllowedHeaders []string          `json:"allowedHeaders"`
		ClientRemoteIP json.RawMessage   `json:"clientRemoteIP"`
	} `json:"web"`
	Telemetry json.RawMessage `json:"telemetry"`
	OAuth2    struct {
		GrantTypes            []string `json:"grantTypes"`
		ResponseTypes         []string `json:"responseTypes"`
		SkipApprovalScreen    bool     `json:"skipApprovalScreen"`
		AlwaysShowLoginScreen bool     `json:"alwaysShowLoginScreen"`
		PasswordConnector     string   `json:"passwordConnector"`
		PKCE                  struct {
			Enforce                       bool     `json:"enforce"`
			CodeChallengeMethodsSupported []string `json:"codeChallengeMethodsSupported"`
		} `json:"pkce"`
	} `json:"oauth2"`
	GRPC             json.RawMessage `json:"grpc"`
	Expiry           json.RawMessage `json:"expiry"`
	Logger           json.RawMessage `json:"logger"`
	Frontend         json.RawMessage `json:"frontend"`
	Signer           json.RawMessage `json:"signer"`
	StaticConnectors json.RawMessage `json:"connectors"`
	StaticClients    []struct {
		ID                      string          `json:"id"`
		IDEnv                   string          `json:"idEnv"`
		Secret                  string          `json:"secret"`
		SecretEnv               string          `json:"secretEnv"`
		RedirectURIs            []string        `json:"redirectURIs"`
		PostLogoutRedirectURIs  []string        `json:"postLogoutRedirectURIs"`
		BackchannelLogoutURI    string          `json:"backchannelLogoutURI"`
		RefreshTokenLifetime    string          `json:"refreshTokenLifetime"`
		TrustedPeers            []string        `json:"trustedPeers"`
		Public                  bool            `json:"public"`
		Name                    string          `json:"name"`
		LogoURL                 string          `json:"logoURL"`
		AllowedConnectors       []string        `json:"allowedConnectors"`
		MFAChain                []string        `json:"mfaChain"`
		SSOSharedWith           []string        `json:"ssoSharedWith"`
		ClientCredentialsClaims json.RawMessage `json:"clientCredentialsClaims"`
	} `json:"staticClients"`
	EnablePasswordDB bool `json:"enablePasswordDB"`
	StaticPasswords  []struct {
		Email             string   `json:"email"`
		Username          string   `json:"username"`
		Name              string   `json:"name"`
		PreferredUsername string   `json:"preferredUsername"`
		EmailVerified     *bool    `json:"emailVerified"`
		UserID            string   `json:"userID"`
		Hash              string   `json:"hash"`
		HashFromEnv       string   `json:"hashFromEnv"`
		Groups            []string `json:"groups"`
	} `json:"staticPasswords"`
	Sessions json.RawMessage `json:"sessions"`
	MFA      json.RawMessage `json:"mfa"`
}

// dexGrantTypes are the grant types Dex implements (server.supportedTypes):
// a grantTypes entry outside them is dropped by Dex without a word, so the
// test refuses it. password needs a passwordConnector.
var dexGrantTypes = []string{"authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code",
	"urn:ietf:params:oauth:grant-type:token-exchange", "client_credentials", "password"}

// TestDocsAuthDexConfigIsOneDexAccepts: the Dex configuration docs/auth.md
// prints (oauth/testdata/dex.yaml, which a test there checks it prints
// as it is) decodes against Dex's configuration types with unknown fields
// refused, and passes the checks Dex makes when it starts (cmd/dex's
// Config.Validate and serve): the issuer, storage and listener; each
// static client's name, id and secret; static passwords only with the
// password database, each with a bcrypt hash (of "password", as the docs
// say); the grant types Dex knows; the password grant's connector; and
// what toolexec needs of it: a static client per resource URI trusting
// the MCP client, a user in groups.
func TestDocsAuthDexConfigIsOneDexAccepts(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "oauth", "testdata", "dex.yaml"))
	require.NoError(t, err)
	var doc any
	require.NoError(t, yaml.Unmarshal(raw, &doc))
	asJSON, err := json.Marshal(doc)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(asJSON))
	dec.DisallowUnknownFields()
	var c dexConfig
	require.NoError(t, dec.Decode(&c), "a field Dex does not know")
	require.ErrorIs(t, dec.Decode(&struct{}{}), io.EOF)

	assert.NotEmpty(t, c.Issuer, "no issuer specified in config file")
	assert.Equal(t, "memory", c.Storage.Type)
	assert.True(t, len(c.Storage.Config) == 0 || string(c.Storage.Config) == "{}", "the memory storage has no config")
	assert.True(t, c.Web.HTTP != "" || c.Web.HTTPS != "", "must supply a HTTP/HTTPS address to listen on")
	assert.True(t, c.EnablePasswordDB || len(c.StaticPasswords) == 0, "cannot specify static passwords without enabling password db")
	ids := map[string]bool{}
	for _, cl := range c.StaticClients {
		assert.NotEmpty(t, cl.Name, "Name field is required for a client")
		assert.NotEmpty(t, cl.ID, "ID or IDEnv field is required for a client")
		assert.True(t, cl.Secret != "" || cl.Public, "Secret or SecretEnv field is required for client %q", cl.ID)
		ids[cl.ID] = true
	}
	for _, gt := range c.OAuth2.GrantTypes {
		assert.Contains(t, dexGrantTypes, gt)
	}
	if slices.Contains(c.OAuth2.GrantTypes, "password") {
		assert.Equal(t, "local", c.OAuth2.PasswordConnector, "the password grant needs a connector: the password database's")
		assert.True(t, c.EnablePasswordDB)
	}
	for _, p := range c.StaticPasswords {
		assert.NoError(t, bcrypt.CompareHashAndPassword([]byte(p.Hash), []byte("password")), p.Email)
		assert.NotEmpty(t, p.UserID)
		assert.NotEmpty(t, p.Groups, "toolexec reads the groups")
	}

	// What toolexec needs: the resource's static client trusts the MCP
	// client, and it is the resource docs/auth.md's Dex settings name.
	blocks, err := docblocks.Read(filepath.Join("..", "..", "docs", "auth.md"))
	require.NoError(t, err)
	var settings oauth.Config
	require.NoError(t, docblocks.Literal(docblocks.Find(blocks, "settings")["dex"].Text, &settings))
	assert.Equal(t, c.Issuer, settings.Issuer)
	require.Len(t, settings.Resources, 1)
	var resource, peers []string
	for _, cl := range c.StaticClients {
		if cl.ID == settings.Resources[0] {
			resource, peers = append(resource, cl.ID), cl.TrustedPeers
		}
	}
	require.Len(t, resource, 1, "a static client named by the resource URI")
	require.NotEmpty(t, peers)
	for _, p := range peers {
		assert.True(t, ids[p], "the trusted peer %q is a static client", p)
	}
}

// TestDocsAuthServeLinesSayWhatTheSettingsSay: each `toolexec serve` line
// of docs/auth.md (a block marked <!-- flags: NAME -->) parses with
// serve's flags and makes the oauth.Config of the settings printed for
// the same provider: same issuer, the printed resource among serve's, and
// every other setting equal.
func TestDocsAuthServeLinesSayWhatTheSettingsSay(t *testing.T) {
	blocks, err := docblocks.Read(filepath.Join("..", "..", "docs", "auth.md"))
	require.NoError(t, err)
	settings := docblocks.Find(blocks, "settings")
	flags := docblocks.Find(blocks, "flags")
	require.Equal(t, len(settings), len(flags), "a serve line for each provider's settings")
	for name, b := range flags {
		t.Run(name, func(t *testing.T) {
			env, args := shellWords(t, b.Text)
			require.GreaterOrEqual(t, len(args), 2)
			require.Equal(t, []string{"toolexec", "serve"}, args[:2], "docs/auth.md:%d", b.Line)
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			fs.String("config", "", "")
			var o oauthFlags
			o.register(fs)
			require.NoError(t, fs.Parse(args[2:]), "docs/auth.md:%d", b.Line)
			require.Empty(t, fs.Args())
			require.NoError(t, o.check(""))
			scopes, explicit := o.explicitScopes()
			require.True(t, explicit, "docs/auth.md:%d: the line names the scopes", b.Line)
			got := o.config(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, scopes, nil)

			var want oauth.Config
			require.NoError(t, docblocks.Literal(settings[name].Text, &want))
			assert.Equal(t, want.Issuer, got.Issuer)
			require.Len(t, want.Resources, 1)
			assert.Contains(t, got.Resources, want.Resources[0])
			got.Issuer, got.Resources, want.Issuer, want.Resources = "", nil, "", nil
			if got.Introspection != nil && want.Introspection != nil {
				got.Introspection.Endpoint = want.Introspection.Endpoint
			}
			assert.Equal(t, want, got, "docs/auth.md:%d", b.Line)
		})
	}
}

// shellWords splits a shell command of docs/auth.md: continued lines
// joined, words split on blanks, single quotes kept together; leading
// NAME=value words are its environment.
func shellWords(t *testing.T, text string) (map[string]string, []string) {
	t.Helper()
	text = strings.ReplaceAll(text, "\\\n", " ")
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range text {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case !quoted && (r == ' ' || r == '\t' || r == '\n'):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	require.False(t, quoted, "an unclosed quote")
	if inWord {
		words = append(words, cur.String())
	}
	env := map[string]string{}
	for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
		k, v, _ := strings.Cut(words[0], "=")
		env[k] = v
		words = words[1:]
	}
	return env, words
}
