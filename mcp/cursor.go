package mcp

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// cursorPrefix marks our cursors, so that a cursor from another server, or
// one made up, is refused rather than misread.
const cursorPrefix = "toolexec/offset/"

// encodeCursor makes the opaque tools/list cursor for the page starting at
// offset.
func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.Itoa(offset)))
}

// decodeCursor reads a cursor back; "" is the first page.
func decodeCursor(cursor string) (int, bool) {
	if cursor == "" {
		return 0, true
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, false
	}
	digits, ok := strings.CutPrefix(string(raw), cursorPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
