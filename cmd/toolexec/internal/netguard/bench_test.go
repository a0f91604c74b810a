package netguard

import (
	"net/netip"
	"testing"
)

func BenchmarkIsLocal(b *testing.B) {
	ip := netip.MustParseAddr("2606:4700:4700::1111")
	for b.Loop() {
		_ = IsLocal(ip)
	}
}
