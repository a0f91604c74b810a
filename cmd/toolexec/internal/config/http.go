package config

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/netguard"
)

// httpSource checks an http source's baseUrl and allowedHosts: an
// absolute http or https URL, well-formed entries, and the URL's own
// origin (host and port) in the list. An empty list becomes the URL's
// host.
func (p *parser) httpSource(what string, nameNode, allowedNode *yaml.Node, s *Source) {
	u, err := url.Parse(s.BaseURL)
	if s.BaseURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		p.errorf(nameNode, "%s: http needs baseUrl, an absolute http or https URL", what)
		return
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			p.errorf(nameNode, "%s: the port of baseUrl (%s) is not a port number", what, p.show(port))
			return
		}
	}
	bad := false
	for i, h := range s.AllowedHosts {
		if err := netguard.CheckEntry(h); err != nil {
			at := nameNode
			if allowedNode != nil && i < len(allowedNode.Content) {
				at = allowedNode.Content[i]
			}
			p.errorf(at, "%s: allowedHosts entry %s: %v", what, p.show(h), err)
			bad = true
		}
	}
	if bad {
		return
	}
	if len(s.AllowedHosts) == 0 {
		s.AllowedHosts = []string{u.Hostname()}
	}
	if _, err := netguard.New(u, s.AllowedHosts, s.AllowPrivateNetworks); err != nil {
		p.errorf(nameNode, "%s: the host and port of baseUrl (%s) are not in allowedHosts (an entry without a port allows baseUrl's port)", what, p.show(u.Host))
	}
}

// checkHTTPParams reports each query or header parameter of an http tool
// that has the name of a value the file configures: a query parameter of
// the source, of its baseUrl or of the tool's path, or a header of the
// source or the tool. The configured value is always sent in its place (a
// caller must never replace a source's key), so such a parameter would
// be ignored. Names compare case-insensitively: some servers read query
// names so, and header names are.
func (p *parser) checkHTTPParams(t *Tool, src *Source) {
	what := "tool " + strconv.Quote(t.Name)
	queries := configuredQuery(src, t)
	for _, prm := range t.QueryParams {
		if by, ok := queries[strings.ToLower(prm.Name)]; ok {
			p.problems = append(p.problems, Problem{File: p.file, Line: prm.Line, Message: fmt.Sprintf(
				"%s: query parameter %s has the name of a query parameter %s sets, which is always sent in its place: rename the parameter", what, p.show(prm.Name), by)})
		}
	}
	headers := map[string]string{}
	for k := range t.Headers {
		headers[strings.ToLower(k)] = "the tool's headers"
	}
	for k := range src.Headers {
		headers[strings.ToLower(k)] = fmt.Sprintf("source %q", src.Name)
	}
	for _, prm := range t.HeaderParams {
		if by, ok := headers[strings.ToLower(prm.Name)]; ok {
			p.problems = append(p.problems, Problem{File: p.file, Line: prm.Line, Message: fmt.Sprintf(
				"%s: header parameter %s has the name of a header %s sets, which is always sent in its place: rename the parameter", what, p.show(prm.Name), by)})
		}
	}
}

// configuredQuery maps the lower-cased names of the query parameters the
// file sets for t's requests to who sets them.
func configuredQuery(src *Source, t *Tool) map[string]string {
	out := map[string]string{}
	if _, q, ok := strings.Cut(t.Path, "?"); ok {
		if vals, err := url.ParseQuery(q); err == nil {
			for k := range vals {
				out[strings.ToLower(k)] = "the tool's path"
			}
		}
	}
	if u, err := url.Parse(src.BaseURL); err == nil {
		for k := range u.Query() {
			out[strings.ToLower(k)] = fmt.Sprintf("the baseUrl of source %q", src.Name)
		}
	}
	for k := range src.QueryParams {
		out[strings.ToLower(k)] = fmt.Sprintf("source %q", src.Name)
	}
	return out
}
