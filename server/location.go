package server

import (
	"fmt"
	"net"
	"net/url"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

// Endpoint locations. A multi-endpoint result (a take split into endpoints) names
// where each endpoint is read: this server's own URI, then Flight's
// "reuse the connection" location (flight.LocationReuseConnection), so a
// client that cannot reach the URI (it came through a proxy, or the TLS
// name differs) reads from the connection it has. The URI is
// Options.Location (the CLI's -advertise: the address clients reach the
// server at, behind NAT or a load balancer), else the listener's own
// address with grpc:// or grpc+tls://. A listener on an unspecified
// address (0.0.0.0, [::]) has no address a client could dial; then, and
// without -advertise, endpoints carry the reuse location alone.

// checkLocation accepts a URI a Flight client can dial.
func checkLocation(loc string) error {
	u, err := url.Parse(loc)
	if err != nil {
		return fmt.Errorf("%w: advertised location %q: %w", ErrConfig, loc, err)
	}
	switch u.Scheme {
	case "grpc", "grpc+tcp", "grpc+tls":
	default:
		return fmt.Errorf("%w: advertised location %q: scheme %q (want grpc://, grpc+tcp:// or grpc+tls://)", ErrConfig, loc, u.Scheme)
	}
	if _, _, err := net.SplitHostPort(u.Host); err != nil || u.Path != "" && u.Path != "/" {
		return fmt.Errorf("%w: advertised location %q: want SCHEME://HOST:PORT", ErrConfig, loc)
	}
	return nil
}

// ownLocation is the URI the server advertises when listening on addr
// ("" when addr cannot be dialled).
func (s *Server) ownLocation(addr net.Addr) string {
	if s.opt.Location != "" {
		return s.opt.Location
	}
	ta, ok := addr.(*net.TCPAddr)
	if !ok || ta.IP == nil || ta.IP.IsUnspecified() {
		return ""
	}
	scheme := "grpc"
	if s.opt.TLS != nil {
		scheme = "grpc+tls"
	}
	return scheme + "://" + ta.String()
}

// endpointLocations are the locations of a multi-endpoint result's
// endpoints.
func (s *Server) endpointLocations() []*flight.Location {
	var locs []*flight.Location
	if loc, _ := s.location.Load().(string); loc != "" {
		locs = append(locs, &flight.Location{Uri: loc})
	}
	return append(locs, &flight.Location{Uri: flight.LocationReuseConnection})
}
