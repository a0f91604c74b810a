package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
)

// ErrNotAllowed is returned (wrapped) when a connection's host and port
// are not in the allow-list.
var ErrNotAllowed = errors.New("host not allowed")

// ErrLocalAddress is returned (wrapped) when a host name resolves to a
// local address (IsLocal) and the source does not allow private networks.
var ErrLocalAddress = errors.New("host name resolves to a private or local address")

// LookupFunc resolves a host name to its IP addresses.
type LookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

// DialFunc opens a connection to addr, an IP address and port that the
// guard has approved.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Guard dials for one source: only hosts and ports its AllowList holds,
// and, for a host name, only the addresses the name resolved to once they
// have passed the address check. It dials the approved IP address itself,
// so a name cannot resolve to one address for the check and another for
// the connection (DNS rebinding).
type Guard struct {
	list   *AllowList
	lookup LookupFunc
	dial   DialFunc
}

// NewGuard returns the Guard of list. lookup and dial, when nil, are the
// system resolver and a plain TCP dial.
func NewGuard(list *AllowList, lookup LookupFunc, dial DialFunc) *Guard {
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	return &Guard{list: list, lookup: lookup, dial: dial}
}

// DialContext is an http.Transport's DialContext. addr's host must be in
// the allow-list with its port. An IP address, or the name localhost, is
// dialled as the tools file names it: its author chose it. Any other name
// is resolved, and refused with ErrLocalAddress when any of its addresses
// is local (localhost: any that is local but not loopback), unless the
// list allows private networks; the approved addresses are tried in the
// resolver's order.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if !g.list.allowsHostPort(host, port) {
		return nil, fmt.Errorf("dial %s: %w", net.JoinHostPort(host, port), ErrNotAllowed)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return g.dial(ctx, network, net.JoinHostPort(ip.String(), port))
	}
	ips, err := g.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("lookup %s: no addresses", host)
	}
	localhost := canonicalHost(host) == "localhost"
	for _, ip := range ips {
		if g.list.private || !IsLocal(ip) || (localhost && ip.Unmap().IsLoopback()) {
			continue
		}
		return nil, &LocalAddressError{Host: host, Addr: ip}
	}
	var lastErr error
	for _, ip := range ips {
		conn, err := g.dial(ctx, network, net.JoinHostPort(ip.Unmap().WithZone("").String(), port))
		if err == nil {
			return conn, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

// LocalAddressError is the refusal of a host name that resolved to a local
// address. It matches ErrLocalAddress with errors.Is.
type LocalAddressError struct {
	// Host is the name, Addr the local address it resolved to.
	Host string
	Addr netip.Addr
}

// Error names the host and the address; it is for logs, not callers.
func (e *LocalAddressError) Error() string {
	return fmt.Sprintf("%s resolves to %s, a private or local address", e.Host, e.Addr)
}

// Is makes errors.Is(err, ErrLocalAddress) hold.
func (e *LocalAddressError) Is(target error) bool { return target == ErrLocalAddress }
