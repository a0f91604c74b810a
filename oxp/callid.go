package oxp

import "crypto/rand"

// newCallID returns a random UUID (version 4, RFC 9562) in its canonical
// form, "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" in lower-case hex, as the
// call_id of a call whose caller sent none. Its 122 random bits come from
// crypto/rand, as github.com/google/uuid's NewString takes them, so ids are
// unique without coordination between replicas; it formats them with one
// allocation, the string, where NewString makes three.
func newCallID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])  // crypto/rand.Read never fails (Go 1.24 and later)
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // variant: RFC 9562
	const hex = "0123456789abcdef"
	var s [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			s[j] = '-'
			j++
		}
		s[j], s[j+1] = hex[c>>4], hex[c&0x0f]
		j += 2
	}
	return string(s[:])
}
