package netguard

import "net/netip"

// localPrefixes are the ranges a host name must not resolve into unless
// its source allows private networks: every range of the IANA
// special-purpose registries that is not globally reachable (this network,
// private, shared/CGNAT, loopback, link-local, protocol assignments,
// documentation, benchmarking, reserved, multicast, broadcast; IPv6
// unspecified, loopback, IPv4-compatible, discard, protocol assignments,
// documentation, unique local, site-local, link-local, multicast, and the
// local-use NAT64 prefix).
var localPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8",
		"169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24",
		"192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",

		"::/96", "100::/64", "2001::/23", "2001:db8::/32", "64:ff9b:1::/48",
		"fc00::/7", "fec0::/10", "fe80::/10", "ff00::/8",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Embedding prefixes: an IPv6 address in them carries an IPv4 address,
// which is judged instead.
var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// IsLocal reports whether ip is not a public unicast address: loopback,
// unspecified, private (RFC 1918, unique local fc00::/7), shared (CGNAT
// 100.64.0.0/10), link-local, multicast, broadcast, or another
// special-purpose range that is not globally reachable. An IPv4-mapped
// IPv6 address is judged as its IPv4 address, and so is the IPv4 address
// a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address embeds.
func IsLocal(ip netip.Addr) bool {
	if !ip.IsValid() {
		return true
	}
	ip = ip.WithZone("").Unmap()
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64Prefix.Contains(ip):
			return IsLocal(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case sixToFour.Contains(ip):
			return IsLocal(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsMulticast() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range localPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
