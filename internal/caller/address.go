package caller

import (
	"net"
	"net/netip"
)

// DefaultIPv6PrefixBits is how many leading bits of an IPv6 address name
// an anonymous caller by default: a /64, the smallest network an ISP or a
// cloud hands one customer, within which one host may take any of 2^64
// addresses.
const DefaultIPv6PrefixBits = 64

// Address names the network an anonymous caller's request came from, given
// its RemoteAddr ("host:port", or a bare host): an IPv4 address whole (an
// IPv4-mapped IPv6 address counts as the IPv4 address it maps), an IPv6
// address by its first v6Bits bits (v6Bits outside 1 to 128 means
// DefaultIPv6PrefixBits), its zone dropped, so that one host cannot count
// as many callers by changing the low bits of its address. Anything that
// is not an IP address (a stdio pseudo-address, a Unix socket's) is
// returned as it is.
func Address(remoteAddr string, v6Bits int) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
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
