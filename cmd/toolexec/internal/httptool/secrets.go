package httptool

import (
	"sort"
	"strings"
)

// minSecret is the length from which a secret is redacted from upstream
// answers: shorter strings are too likely to occur by chance, and
// replacing them would garble the answer.
const minSecret = 8

// credentialWords mark a header or query parameter whose value is a
// credential by its name (Authorization, X-Api-Key, access_token,
// Cookie, ...), so its value is a secret even when the file writes it out.
var credentialWords = []string{"auth", "token", "secret", "key", "password", "passwd", "cookie", "session", "signature", "credential"}

// credentialName reports whether a header or query parameter name marks
// its value as a credential.
func credentialName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range credentialWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// secretPairs are the strings.Replacer pairs that redact the secrets among
// configured header and query values (by name, from maps): the parts that
// came from the environment (envValues), and the values of credentials
// (see credentialName) with the part after their scheme ("Bearer x" is
// redacted whole and as "x"). Each is redacted when it is minSecret bytes
// or longer. Ordinary values (Content-Type: application/json) are left
// alone. Longer secrets come first, so a value and a part of it redact as
// one.
func secretPairs(envValues []string, maps ...map[string]string) []string {
	seen := map[string]bool{}
	add := func(s string) {
		if len(s) >= minSecret {
			seen[s] = true
		}
	}
	for _, m := range maps {
		for name, v := range m {
			for _, e := range envValues {
				if e != "" && strings.Contains(v, e) {
					add(e)
				}
			}
			if credentialName(name) {
				add(v)
				if _, after, ok := strings.Cut(v, " "); ok {
					add(after)
				}
			}
		}
	}
	secrets := make([]string, 0, len(seen))
	for s := range seen {
		secrets = append(secrets, s)
	}
	sort.Slice(secrets, func(i, j int) bool {
		a, b := secrets[i], secrets[j]
		return len(a) > len(b) || len(a) == len(b) && a < b
	})
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, "[redacted]")
	}
	return pairs
}
