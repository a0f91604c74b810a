package main

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"time"
)

// authRequest is an authorization request awaiting the user's consent.
type authRequest struct {
	client      *client
	redirectURI string
	state       string
	grant       *grant
}

// pkceVerifier is RFC 7636's code_verifier; a code_challenge of S256 is
// 43 characters of base64url.
var (
	pkceVerifier  = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)
	pkceChallenge = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)
)

// authorize is the authorization endpoint: it checks the request and shows
// the consent page. Until the client and its redirect URI are known to be
// right, errors are a page; after, they go back to the client.
func (p *provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	c, err := p.lookupClient(r, q.Get("client_id"))
	if err != nil {
		p.errorPage(w, "Unknown client: "+quoteParam(q.Get("client_id"))+".")
		return
	}
	redirectURI := q.Get("redirect_uri")
	if !c.redirectAllowed(redirectURI) {
		p.errorPage(w, "The redirect URI "+quoteParam(redirectURI)+" is not one the client registered.")
		return
	}
	fail := func(e *oauthError) { p.redirectError(w, r, redirectURI, q.Get("state"), e) }
	switch {
	case q.Get("response_type") != "code":
		fail(&oauthError{code: "unsupported_response_type", description: "only code"})
		return
	case !slices.Contains(c.grantTypes, grantCode):
		fail(&oauthError{code: "unauthorized_client", description: "the client did not register authorization_code"})
		return
	case q.Get("code_challenge_method") != "S256" || !pkceChallenge.MatchString(q.Get("code_challenge")):
		fail(&oauthError{code: "invalid_request", description: "PKCE is required: code_challenge with code_challenge_method S256"})
		return
	}
	scopes, e := scopesFor(q.Get("scope"))
	if e != nil {
		fail(e)
		return
	}
	audience, e := p.audienceFor(q["resource"])
	if e != nil {
		fail(e)
		return
	}
	req := &authRequest{client: c, redirectURI: redirectURI, state: q.Get("state"), grant: &grant{
		clientID: c.id, subject: demoUser, scopes: scopes, audience: audience, nonce: q.Get("nonce"),
		authTime: time.Now(), redirectURI: redirectURI, challenge: q.Get("code_challenge"),
	}}
	id := rand.Text()
	p.mu.Lock()
	p.requests.put(id, req, requestTTL)
	p.mu.Unlock()
	p.consentPage(w, consent{Action: "authorize/decide", Field: "request", Value: id, Client: c.name, ClientID: c.id,
		RedirectHost: hostOf(redirectURI), Scopes: scopes, Resources: audience})
}

// decide is the consent page's answer: allow sends an authorization code
// to the client, deny an access_denied error.
func (p *provider) decide(w http.ResponseWriter, r *http.Request) {
	if e := parseForm(w, r); e != nil {
		p.errorPage(w, e.description)
		return
	}
	p.mu.Lock()
	req, ok := p.requests.take(r.PostForm.Get("request"))
	p.mu.Unlock()
	if !ok {
		p.errorPage(w, "This sign-in has expired or was already answered; start again from the client.")
		return
	}
	if r.PostForm.Get("decision") != "allow" {
		p.redirectError(w, r, req.redirectURI, req.state, &oauthError{code: "access_denied", description: "the user declined"})
		return
	}
	code := rand.Text()
	p.mu.Lock()
	p.codes.put(digest(code), req.grant, codeTTL)
	p.mu.Unlock()
	p.redirect(w, r, req.redirectURI, url.Values{"code": {code}, "state": {req.state}})
}

// redirect sends the browser to the client's redirect URI with params,
// the state when there is one, and the issuer (RFC 9207).
func (p *provider) redirect(w http.ResponseWriter, r *http.Request, redirectURI string, params url.Values) {
	u, _ := url.Parse(redirectURI) // checked against the client's
	q := u.Query()
	for k, v := range params {
		if len(v) > 0 && v[0] != "" {
			q[k] = v
		}
	}
	q.Set("iss", p.issuer)
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

func (p *provider) redirectError(w http.ResponseWriter, r *http.Request, redirectURI, state string, e *oauthError) {
	p.redirect(w, r, redirectURI, url.Values{"error": {e.code}, "error_description": {e.description}, "state": {state}})
}

// checkPKCE reports whether verifier is the one challenge was made from.
func checkPKCE(challenge, verifier string) bool {
	if !pkceVerifier.MatchString(verifier) {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

func hostOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	return u.Host
}

// consent is what the consent page shows, and the form it answers with.
type consent struct {
	Action, Field, Value string // the form: where it posts, and the request it answers
	Client, ClientID     string
	RedirectHost         string // "" for the device grant
	UserCode             string // for the device grant
	Scopes, Resources    []string
}

// page is the provider's one page: a consent form, which submits itself
// (this is a demo: the user always agrees, but sees to what), or a message.
var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolexec OAuth demo</title>
<style>body{font-family:sans-serif;max-width:40em;margin:2em auto}code{background:#eee;padding:0 .2em}</style></head>
<body><h1>toolexec OAuth demo</h1>
{{if .Message}}<p>{{.Message}}</p>{{else}}{{with .Consent}}
<p>Signed in as <b>alice</b> (a demo sign-in: no password).</p>
<p><b>{{.Client}}</b> (<code>{{.ClientID}}</code>){{if .RedirectHost}}, answering at <b>{{.RedirectHost}}</b>,{{end}} asks for
{{range .Scopes}}<code>{{.}}</code> {{end}}on {{range .Resources}}<code>{{.}}</code> {{end}}.</p>
{{if .UserCode}}<p>Device code <b>{{.UserCode}}</b>.</p>{{end}}
<form id="consent" method="post" action="{{.Action}}">
<input type="hidden" name="{{.Field}}" value="{{.Value}}">
<button name="decision" value="allow" id="allow">Allow</button>
<button name="decision" value="deny">Deny</button>
</form>
<p>This demo allows on its own in a moment.</p>
<script>setTimeout(function(){document.getElementById('allow').click()},300)</script>
{{end}}{{end}}
</body></html>
`))

func (p *provider) consentPage(w http.ResponseWriter, c consent) {
	p.writePage(w, http.StatusOK, map[string]any{"Consent": c})
}

func (p *provider) errorPage(w http.ResponseWriter, msg string) {
	p.writePage(w, http.StatusBadRequest, map[string]any{"Message": msg})
}

func (p *provider) writePage(w http.ResponseWriter, status int, data map[string]any) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; frame-ancestors 'none'")
	w.WriteHeader(status)
	_ = page.Execute(w, data) // a write error means the browser has gone
}
