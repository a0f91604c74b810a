package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// maxDocumentBytes bounds what is read of a metadata, key set or
// introspection answer.
const maxDocumentBytes = 1 << 20

// serverMetadata is what the Verifier reads of the authorization server's
// metadata (RFC 8414, OpenID Connect Discovery).
type serverMetadata struct {
	Issuer                string   `json:"issuer"`
	JWKSURI               string   `json:"jwks_uri"`
	IntrospectionEndpoint string   `json:"introspection_endpoint"`
	ScopesSupported       []string `json:"scopes_supported"`
}

// remote is what the Verifier knows of the authorization server: its
// metadata and its keys, fetched on demand and cached.
type remote struct {
	s *settings

	fetchMu sync.Mutex // one key fetch at a time; waiters then read the result
	metaMu  sync.Mutex // one metadata fetch at a time

	mu        sync.RWMutex
	meta      *serverMetadata
	metaTried time.Time
	keys      []jose.JSONWebKey
	keysAt    time.Time // when keys were fetched; zero: never
	keysTried time.Time // the last attempt, successful or not
}

// getJSON GETs url and decodes its JSON answer into v.
func (rm *remote) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	return rm.do(req, v)
}

// do sends req and decodes a 200 JSON answer into v.
func (rm *remote) do(req *http.Request, v any) error {
	resp, err := rm.s.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }() // read up to its limit; closing only frees the connection
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes+1))
	if err != nil {
		return err
	}
	if len(body) > maxDocumentBytes {
		return fmt.Errorf("%s: answer larger than %d bytes", req.URL.Redacted(), maxDocumentBytes)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: status %d", req.URL.Redacted(), resp.StatusCode)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %w", req.URL.Redacted(), err)
	}
	return nil
}

// metadataURLs are where an issuer's metadata may live, in the order they
// are tried: OpenID Connect Discovery (appended to the issuer), then RFC
// 8414 (inserted after the host).
func metadataURLs(issuer string) []string {
	u, _ := url.Parse(issuer) // checked by settle
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	origin := u.Scheme + "://" + u.Host
	return []string{
		strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration",
		origin + "/.well-known/oauth-authorization-server" + path,
	}
}

// metadata returns the authorization server's metadata, fetching it once.
// A failed fetch is retried at most once per MinRefreshInterval.
func (rm *remote) metadata(ctx context.Context) (*serverMetadata, error) {
	rm.mu.RLock()
	m := rm.meta
	rm.mu.RUnlock()
	if m != nil {
		return m, nil
	}
	rm.metaMu.Lock()
	defer rm.metaMu.Unlock()
	rm.mu.RLock()
	m, tried := rm.meta, rm.metaTried
	rm.mu.RUnlock()
	if m != nil {
		return m, nil
	}
	if !tried.IsZero() && time.Since(tried) < rm.s.MinRefreshInterval {
		return nil, errors.New("authorization server metadata unavailable (retrying later)")
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var errs []error
	for _, u := range metadataURLs(rm.s.Issuer) {
		var got serverMetadata
		if err := rm.getJSON(ctx, u, &got); err != nil {
			errs = append(errs, err)
			continue
		}
		if got.Issuer != rm.s.Issuer {
			errs = append(errs, fmt.Errorf("%s names issuer %q, not %q", u, got.Issuer, rm.s.Issuer))
			continue
		}
		m = &got
		break
	}
	rm.mu.Lock()
	rm.meta, rm.metaTried = m, time.Now()
	rm.mu.Unlock()
	if m == nil {
		err := fmt.Errorf("authorization server metadata: %w", errors.Join(errs...))
		rm.s.Logger.WarnContext(ctx, "oauth: cannot read the authorization server's metadata", "issuer", rm.s.Issuer, "error", err)
		return nil, err
	}
	return m, nil
}

// keysFor returns the issuer's signing keys that may have signed a token
// with key id kid: those with that id or, when there is none, those
// without an id (some servers publish their one key without one); ""
// matches every key. Keys are fetched when there are none yet, when they
// are older than KeyCacheTTL, and when no key has the id kid (a rotation),
// but at most once per MinRefreshInterval.
func (rm *remote) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	if keys, exact, fresh := rm.cached(kid); exact && fresh {
		return keys, nil
	}
	rm.fetchMu.Lock()
	defer rm.fetchMu.Unlock()
	keys, exact, fresh := rm.cached(kid)
	if exact && fresh {
		return keys, nil // fetched while this call waited
	}
	rm.mu.RLock()
	tried := rm.keysTried
	rm.mu.RUnlock()
	if !tried.IsZero() && time.Since(tried) < rm.s.MinRefreshInterval {
		if len(keys) > 0 {
			return keys, nil
		}
		return nil, errUnknownKey
	}
	fetched, err := rm.fetchKeys(ctx)
	rm.mu.Lock()
	rm.keysTried = time.Now()
	if err == nil {
		rm.keys, rm.keysAt = fetched, rm.keysTried
	}
	rm.mu.Unlock()
	if err != nil {
		rm.s.Logger.WarnContext(ctx, "oauth: cannot read the authorization server's keys", "issuer", rm.s.Issuer, "error", err)
		if len(keys) > 0 {
			return keys, nil // stale keys beat no keys
		}
		return nil, fmt.Errorf("signing keys unavailable: %w", err)
	}
	if keys, _, _ = rm.cached(kid); len(keys) == 0 {
		return nil, errUnknownKey
	}
	return keys, nil
}

var errUnknownKey = errors.New("no key of the issuer has the token's key id")

// cached returns the cached keys that may have signed a token with key id
// kid (see keysFor), whether one has exactly that id, and whether the
// cache is within its time to live.
func (rm *remote) cached(kid string) (keys []jose.JSONWebKey, exact, fresh bool) {
	rm.mu.RLock()
	defer rm.mu.RUnlock()
	fresh = !rm.keysAt.IsZero() && time.Since(rm.keysAt) < rm.s.KeyCacheTTL
	var anonymous []jose.JSONWebKey
	for _, k := range rm.keys {
		switch {
		case kid == "" || k.KeyID == kid:
			keys = append(keys, k)
		case k.KeyID == "":
			anonymous = append(anonymous, k)
		}
	}
	if len(keys) > 0 {
		return keys, true, fresh
	}
	return anonymous, false, fresh
}

// fetchKeys reads the issuer's key set and keeps the public signing keys.
func (rm *remote) fetchKeys(ctx context.Context) ([]jose.JSONWebKey, error) {
	u := rm.s.JWKSURL
	if u == "" {
		m, err := rm.metadata(ctx)
		if err != nil {
			return nil, err
		}
		if u = m.JWKSURI; u == "" {
			return nil, errors.New("the authorization server's metadata has no jwks_uri")
		}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	// Each key is decoded on its own, so that a key of a type go-jose does
	// not know (the set may hold encryption keys, say) is skipped instead of
	// failing the whole set.
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := rm.getJSON(ctx, u, &set); err != nil {
		return nil, err
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var k jose.JSONWebKey
		if json.Unmarshal(raw, &k) != nil {
			continue
		}
		if (k.Use == "" || k.Use == "sig") && k.IsPublic() && k.Valid() {
			keys = append(keys, k)
		}
	}
	return keys, nil
}
