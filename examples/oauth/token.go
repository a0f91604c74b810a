package main

import (
	"net/http"
	"slices"
	"time"
)

// token is the token endpoint: the authorization code (with PKCE), refresh
// token, client credentials and device code grants.
func (p *provider) token(w http.ResponseWriter, r *http.Request) {
	c := p.formClient(w, r)
	if c == nil {
		return
	}
	gt := r.PostForm.Get("grant_type")
	if !slices.Contains(c.grantTypes, gt) {
		writeError(w, &oauthError{code: "unauthorized_client", description: "the client may not use grant_type " + quoteParam(gt)})
		return
	}
	var g *grant
	var e *oauthError
	withRefresh := true
	switch gt {
	case grantCode:
		g, e = p.redeemCode(c, r)
	case grantRefresh:
		g, e = p.redeemRefresh(c, r)
	case grantClientCredentials:
		g, e = p.clientCredentials(c, r)
		withRefresh = false // the client can always ask again
	case grantDevice:
		g, e = p.redeemDevice(c, r)
	default:
		e = &oauthError{code: "unsupported_grant_type"}
	}
	if e != nil {
		writeError(w, e)
		return
	}
	out, err := p.tokens(c, g, withRefresh)
	if err != nil {
		writeError(w, &oauthError{code: "server_error"})
		return
	}
	writeJSON(w, http.StatusOK, out)
}

var errInvalidGrant = &oauthError{code: "invalid_grant", description: "unknown, expired or already used, or issued to another client"}

// redeemCode exchanges an authorization code, once: for the client it was
// issued to, at the same redirect URI, with the PKCE verifier; a resource
// parameter must name the one the authorization was for.
func (p *provider) redeemCode(c *client, r *http.Request) (*grant, *oauthError) {
	p.mu.Lock()
	g, ok := p.codes.take(digest(r.PostForm.Get("code")))
	p.mu.Unlock()
	switch {
	case !ok || g.clientID != c.id:
		return nil, errInvalidGrant
	case r.PostForm.Get("redirect_uri") != g.redirectURI:
		return nil, &oauthError{code: "invalid_grant", description: "redirect_uri differs from the authorization request's"}
	case !checkPKCE(g.challenge, r.PostForm.Get("code_verifier")):
		return nil, &oauthError{code: "invalid_grant", description: "code_verifier does not match the code_challenge"}
	}
	return narrow(g, r)
}

// redeemRefresh exchanges a refresh token, once (it is rotated), for the
// client it was issued to; scope and resource may narrow what it grants.
func (p *provider) redeemRefresh(c *client, r *http.Request) (*grant, *oauthError) {
	p.mu.Lock()
	g, ok := p.refresh.take(digest(r.PostForm.Get("refresh_token")))
	p.mu.Unlock()
	if !ok || g.clientID != c.id {
		return nil, errInvalidGrant
	}
	if s := r.PostForm.Get("scope"); s != "" {
		scopes, e := scopesFor(s)
		if e != nil {
			return nil, e
		}
		for _, sc := range scopes {
			if !slices.Contains(g.scopes, sc) {
				return nil, &oauthError{code: "invalid_scope", description: "more than the refresh token grants"}
			}
		}
		g = &grant{clientID: g.clientID, subject: g.subject, scopes: scopes, audience: g.audience, authTime: g.authTime}
	}
	return narrow(g, r)
}

// narrow applies a token request's resource parameter to g: none keeps its
// audience, one must be in it and becomes it.
func narrow(g *grant, r *http.Request) (*grant, *oauthError) {
	res := r.PostForm["resource"]
	switch {
	case len(res) == 0:
		return g, nil
	case len(res) == 1 && slices.Contains(g.audience, res[0]):
		n := *g
		n.audience = res
		return &n, nil
	}
	return nil, &oauthError{code: "invalid_target", description: "resource must name what the grant is for"}
}

// clientCredentials grants a confidential client the scopes it asks for,
// itself as the subject.
func (p *provider) clientCredentials(c *client, r *http.Request) (*grant, *oauthError) {
	if c.public() {
		return nil, &oauthError{code: "unauthorized_client", description: "client credentials need a confidential client"}
	}
	scopes, e := scopesFor(r.PostForm.Get("scope"))
	if e != nil {
		return nil, e
	}
	audience, e := p.audienceFor(r.PostForm["resource"])
	if e != nil {
		return nil, e
	}
	return &grant{clientID: c.id, subject: c.id, scopes: scopes, audience: audience, authTime: time.Now()}, nil
}
