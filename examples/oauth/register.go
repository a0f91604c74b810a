package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Bounds of client metadata, registered or fetched.
const (
	maxRedirectURIs   = 10
	maxRedirectURILen = 2000
	cimdTTL           = 5 * time.Minute // a fetched Client ID Metadata Document is used this long
	registeredTTL     = 24 * time.Hour  // a registered client is forgotten after this
)

// clientMetadata is what the provider reads of RFC 7591 client metadata,
// registered or in a Client ID Metadata Document.
type clientMetadata struct {
	ClientID                string   `json:"client_id,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

// check checks m and fills in RFC 7591's defaults (authorization_code,
// client_secret_basic); it returns why m is refused.
func (m *clientMetadata) check() error {
	if len(m.GrantTypes) == 0 {
		m.GrantTypes = []string{grantCode}
	}
	for _, g := range m.GrantTypes {
		if !slices.Contains([]string{grantCode, grantRefresh, grantClientCredentials, grantDevice}, g) {
			return fmt.Errorf("grant type %s is not offered", quoteParam(g))
		}
	}
	for _, rt := range m.ResponseTypes {
		if rt != "code" {
			return fmt.Errorf("response type %s is not offered", quoteParam(rt))
		}
	}
	if m.TokenEndpointAuthMethod == "" {
		m.TokenEndpointAuthMethod = "client_secret_basic"
	}
	if !slices.Contains([]string{"client_secret_basic", "client_secret_post", "none"}, m.TokenEndpointAuthMethod) {
		return fmt.Errorf("token_endpoint_auth_method %s is not offered", quoteParam(m.TokenEndpointAuthMethod))
	}
	if m.TokenEndpointAuthMethod == "none" && slices.Contains(m.GrantTypes, grantClientCredentials) {
		return errors.New("client_credentials needs a confidential client")
	}
	if slices.Contains(m.GrantTypes, grantCode) && len(m.RedirectURIs) == 0 {
		return errors.New("redirect_uris are required for authorization_code")
	}
	if len(m.RedirectURIs) > maxRedirectURIs {
		return fmt.Errorf("more than %d redirect_uris", maxRedirectURIs)
	}
	for _, uri := range m.RedirectURIs {
		if err := checkRedirectURI(uri); err != nil {
			return err
		}
	}
	if len(m.ClientName) > 200 {
		m.ClientName = m.ClientName[:200]
	}
	return nil
}

// checkRedirectURI admits https URIs, and http ones on a loopback host
// (RFC 8252), without a fragment.
func checkRedirectURI(uri string) error {
	u, err := url.Parse(uri)
	if err != nil || len(uri) > maxRedirectURILen || u.Host == "" || u.Fragment != "" ||
		!(u.Scheme == "https" || (u.Scheme == "http" && isLoopback(u.Hostname()))) {
		return fmt.Errorf("redirect URI %s: an https URI, or http on localhost, 127.0.0.1 or [::1], without a fragment", quoteParam(uri))
	}
	return nil
}

// register is the registration endpoint (RFC 7591): open to anyone, as
// MCP clients expect; the client gets an id, and a secret unless it asked
// for token_endpoint_auth_method none.
func (p *provider) register(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	var m clientMetadata
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		writeError(w, &oauthError{code: "invalid_client_metadata", description: "the body is not a JSON object of at most 64 KiB"})
		return
	}
	if err := m.check(); err != nil {
		code := "invalid_client_metadata"
		if strings.HasPrefix(err.Error(), "redirect URI") {
			code = "invalid_redirect_uri"
		}
		writeError(w, &oauthError{code: code, description: err.Error()})
		return
	}
	c := &client{id: "dyn-" + rand.Text(), name: m.ClientName, redirectURIs: m.RedirectURIs, grantTypes: m.GrantTypes}
	if c.name == "" {
		c.name = "a client registered on its own"
	}
	out := map[string]any{"client_id": c.id, "client_id_issued_at": time.Now().Unix(), "client_name": c.name,
		"redirect_uris": m.RedirectURIs, "grant_types": m.GrantTypes, "response_types": []string{"code"},
		"token_endpoint_auth_method": m.TokenEndpointAuthMethod}
	if m.Scope != "" {
		out["scope"] = m.Scope
	}
	if m.TokenEndpointAuthMethod != "none" {
		c.secret = rand.Text() + rand.Text()
		out["client_secret"] = c.secret
		out["client_secret_expires_at"] = 0
	}
	p.mu.Lock()
	p.clients.put(c.id, c, registeredTTL)
	p.mu.Unlock()
	writeJSON(w, http.StatusCreated, out)
}

// isClientIDURL reports whether id is a Client ID Metadata Document's URL:
// https, with a host and a path, no fragment, no user info.
func isClientIDURL(id string) bool {
	u, err := url.Parse(id)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil && u.Fragment == "" &&
		u.Path != "" && u.Path != "/" && len(id) <= maxRedirectURILen
}

// fetchClient reads the Client ID Metadata Document at id: a JSON object
// of at most 64 KiB whose client_id is id, naming the client and its
// redirect URIs, for a public client (no secret authenticates it; the
// provider follows no redirect).
func (p *provider) fetchClient(ctx context.Context, id string) (*client, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.fetch.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }() // read to its bound, or refused
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("client metadata: status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		return nil, errors.New("client metadata: unreadable or larger than 64 KiB")
	}
	var m clientMetadata
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("client metadata: %w", err)
	}
	switch {
	case m.ClientID != id:
		return nil, errors.New("client metadata: client_id is not the document's URL")
	case m.ClientName == "" || len(m.RedirectURIs) == 0:
		return nil, errors.New("client metadata: client_name and redirect_uris are required")
	case m.TokenEndpointAuthMethod != "" && m.TokenEndpointAuthMethod != "none":
		return nil, errors.New("client metadata: only public clients (token_endpoint_auth_method none)")
	}
	m.TokenEndpointAuthMethod = "none"
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("client metadata: %w", err)
	}
	return &client{id: id, name: m.ClientName, redirectURIs: m.RedirectURIs, grantTypes: m.GrantTypes}, nil
}
