// Package caller names the caller of a request for state bound to it (an
// MCP requestState, a resumable stream, a task): by the identity the auth
// hook established, else by the credentials the request carried.
package caller

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
)

// credentialHeaders are the headers that carry a caller's credentials when
// the auth hook names no identity: state is bound to all of them.
var credentialHeaders = [...]string{"Authorization", "Cookie", "X-Api-Key", "X-Handsai-Token"}

// Digest is a digest naming a caller: of id, the identity the auth hook
// established (toolexec.ContextWithIdentity), when it is not empty; else of the
// credential headers of h (nil: none). It is "" for an anonymous caller
// without credentials. Two callers get the same digest only when they have
// the same identity, or, without one, the same credential headers.
func Digest(id string, h http.Header) string {
	sum := sha256.New()
	if id != "" {
		sum.Write([]byte("identity\x00"))
		sum.Write([]byte(id))
	} else {
		found := false
		for _, k := range credentialHeaders {
			for _, v := range h[k] {
				found = true
				fmt.Fprintf(sum, "%s\x00%d\x00%s", k, len(v), v)
			}
		}
		if !found {
			return ""
		}
	}
	return hex.EncodeToString(sum.Sum(nil)[:16])
}
