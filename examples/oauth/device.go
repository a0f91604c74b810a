package main

import (
	"crypto/rand"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// deviceInterval is how often a device may poll the token endpoint.
const deviceInterval = time.Second

// deviceAuth is a device authorization (RFC 8628) awaiting the user.
type deviceAuth struct {
	client   *client
	userCode string
	grant    *grant
	decided  string // "", "allow" or "deny"
	interval time.Duration
	lastPoll time.Time
}

// userCodeAlphabet has no vowels and no look-alikes (RFC 8628 section 6.1).
const userCodeAlphabet = "BCDFGHJKLMNPQRSTVWXZ"

func newUserCode() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails
	for i := range b {
		b[i] = userCodeAlphabet[int(b[i])%len(userCodeAlphabet)]
	}
	return string(b[:4]) + "-" + string(b[4:])
}

// normalUserCode is a user code as typed, in the form newUserCode makes.
func normalUserCode(s string) string {
	s = strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(s))
	if len(s) != 8 {
		return ""
	}
	return s[:4] + "-" + s[4:]
}

// deviceAuthorization is the device authorization endpoint.
func (p *provider) deviceAuthorization(w http.ResponseWriter, r *http.Request) {
	c := p.formClient(w, r)
	if c == nil {
		return
	}
	if !slices.Contains(c.grantTypes, grantDevice) {
		writeError(w, &oauthError{code: "unauthorized_client", description: "the client did not register the device_code grant"})
		return
	}
	scopes, e := scopesFor(r.PostForm.Get("scope"))
	if e != nil {
		writeError(w, e)
		return
	}
	audience, e := p.audienceFor(r.PostForm["resource"])
	if e != nil {
		writeError(w, e)
		return
	}
	deviceCode, userCode := rand.Text(), newUserCode()
	d := &deviceAuth{client: c, userCode: userCode, interval: deviceInterval, grant: &grant{
		clientID: c.id, subject: demoUser, scopes: scopes, audience: audience, authTime: time.Now()}}
	p.mu.Lock()
	p.devices.put(digest(deviceCode), d, requestTTL)
	p.userCodes.put(userCode, digest(deviceCode), requestTTL)
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"device_code": deviceCode, "user_code": userCode,
		"verification_uri":          p.issuer + "/device",
		"verification_uri_complete": p.issuer + "/device?user_code=" + url.QueryEscape(userCode),
		"expires_in":                int(requestTTL.Seconds()), "interval": int(deviceInterval.Seconds()),
	})
}

// devicePage shows the consent page for a user code, or asks for one.
func (p *provider) devicePage(w http.ResponseWriter, r *http.Request) {
	code := normalUserCode(r.URL.Query().Get("user_code"))
	p.mu.Lock()
	var d *deviceAuth
	if key, ok := p.userCodes.get(code); ok {
		d, _ = p.devices.get(key)
	}
	p.mu.Unlock()
	if d == nil || d.decided != "" {
		p.writePage(w, http.StatusOK, map[string]any{"Message": "Open the address your device shows, with its code " +
			"(" + p.issuer + "/device?user_code=XXXX-XXXX)."})
		return
	}
	p.consentPage(w, consent{Action: "device", Field: "user_code", Value: code, Client: d.client.name, ClientID: d.client.id,
		UserCode: code, Scopes: d.grant.scopes, Resources: d.grant.audience})
}

// deviceDecide records the user's answer for a user code.
func (p *provider) deviceDecide(w http.ResponseWriter, r *http.Request) {
	if e := parseForm(w, r); e != nil {
		p.errorPage(w, e.description)
		return
	}
	code := normalUserCode(r.PostForm.Get("user_code"))
	p.mu.Lock()
	key, ok := p.userCodes.take(code)
	var d *deviceAuth
	if ok {
		d, ok = p.devices.get(key)
	}
	if ok {
		d.decided = "deny"
		if r.PostForm.Get("decision") == "allow" {
			d.decided = "allow"
		}
	}
	p.mu.Unlock()
	if !ok {
		p.errorPage(w, "This code has expired or was already answered.")
		return
	}
	if d.decided == "allow" {
		p.writePage(w, http.StatusOK, map[string]any{"Message": "Done: your device is signed in."})
		return
	}
	p.writePage(w, http.StatusOK, map[string]any{"Message": "Declined: your device is not signed in."})
}

// redeemDevice answers a device's poll: authorization_pending until the
// user answers, slow_down when it polls too often, access_denied when the
// user declined; the grant, once, when the user allowed.
func (p *provider) redeemDevice(c *client, r *http.Request) (*grant, *oauthError) {
	key := digest(r.PostForm.Get("device_code"))
	p.mu.Lock()
	defer p.mu.Unlock()
	d, ok := p.devices.get(key)
	if !ok || d.client.id != c.id {
		return nil, &oauthError{code: "expired_token", description: "unknown or expired device code"}
	}
	now := time.Now()
	early := now.Sub(d.lastPoll) < d.interval-200*time.Millisecond
	d.lastPoll = now
	switch d.decided {
	case "allow":
		p.devices.take(key)
		return d.grant, nil
	case "deny":
		p.devices.take(key)
		return nil, &oauthError{code: "access_denied", description: "the user declined"}
	}
	if early {
		d.interval += 5 * time.Second
		return nil, &oauthError{code: "slow_down"}
	}
	return nil, &oauthError{code: "authorization_pending"}
}
