package caller

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/netip"
)

// DefaultIPv6PrefixBits is how many leading bits of an IPv6 address name
// an anonymous caller by default: a /64, the smallest network an ISP or a
// cloud hands one customer, within which one host may take any of 2^64
// addresses.
const DefaultIPv6PrefixBits = 64

// Share is a digest naming whose share of a bounded resource a caller's
// state counts in (its live tasks, its tasks and stream logs kept in the
// process): the identity the auth hook established when there is one,
// else address, the network its request came from (see Address). Unlike
// Digest it never names a caller by its credentials alone, which a caller
// without an identity can change at will to count as many. For a caller
// with an identity it equals Digest(identity, h) for any h.
func Share(identity, address string) string {
	if identity != "" {
		return Digest(identity, nil)
	}
	sum := sha256.Sum256([]byte("address\x00" + address))
	return hex.EncodeToString(sum[:16])
}

// Address names the network an anonymous caller's request came from, given
// its RemoteAddr ("host:port", or a bare host, an IPv6 one with or without
// its brackets): an IPv4 address whole (an
// IPv4-mapped IPv6 address counts as the IPv4 address it maps), an IPv6
// address by its first v6Bits bits (v6Bits outside 1 to 128 means
// DefaultIPv6PrefixBits), its zone dropped, so that one host cannot count
// as many callers by changing the low bits of its address. Anything that
// is not an IP address (a stdio pseudo-address, a Unix socket's) is
// returned as it is.
func Address(remoteAddr string, v6Bits int) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		// A bare host; an IPv6 one may keep its brackets ("[2001:db8::1]").
		host = remoteAddr
		if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
			host = host[1 : len(host)-1]
		}
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.WithZone("").Unmap()
	if ip.Is4() {
		return ip.String()
	}
	if v6Bits < 1 || v6Bits > 128 {
		v6Bits = DefaultIPv6PrefixBits
	}
	p, _ := ip.Prefix(v6Bits) // cannot fail: an IPv6 address and 1 to 128 bits
	return p.String()
}
