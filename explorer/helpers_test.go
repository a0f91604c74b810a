package explorer_test

import (
	"crypto/sha256"
	"encoding/base64"
)

func sha256Source(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
