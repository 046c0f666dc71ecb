package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/stablerow/stablerow/errkind"
)

// ErrTicket: an endpoint ticket that is garbled, forged, of another
// server (or an earlier run of this one), or expired.
var ErrTicket = errkind.New(errkind.InvalidArgument, "server: bad endpoint ticket")

// An endpoint ticket names one endpoint of a split take: which take (a
// random handle), which endpoint of how many, the fragments of its
// group, and until when it is valid. It is signed with a key the server
// draws when it starts, so a client can neither forge one nor change the
// group it names; every field is checked before anything is looked up.
//
//	offset  size     field
//	0       4        magic "SRPT"
//	4       1        format (1)
//	5       16       take handle
//	21      4        endpoint (little endian, < endpoints)
//	25      4        endpoints (1..maxEndpoints)
//	29      8        expiry, Unix nanoseconds
//	37      4        n, the fragments of the group (1..maxTicketFragments)
//	41      4n       the fragment ids, ascending
//	41+4n   32       HMAC-SHA256 of the bytes before it
//
// It travels as the statement handle of a Flight SQL TicketStatementQuery,
// so any Flight SQL client's DoGet routes it here; results' own handles
// are 32 hex characters and never start with the magic.
type endpointTicket struct {
	handle    [16]byte
	endpoint  uint32 // which endpoint of the take, 0-based
	endpoints uint32 // of how many
	expiry    time.Time
	frags     []uint32
	expired   bool // set by decode: valid but past its expiry
}

const (
	ticketMagic        = "SRPT"
	ticketFormat       = 1
	ticketHeader       = 41
	ticketMAC          = sha256.Size
	maxEndpoints       = 1 << 10
	maxTicketFragments = 1 << 20
)

// isEndpointTicket tells an endpoint ticket from a result handle.
func isEndpointTicket(b []byte) bool {
	return len(b) >= len(ticketMagic) && string(b[:4]) == ticketMagic
}

// encode writes t signed with key.
func (t *endpointTicket) encode(key []byte) []byte {
	b := make([]byte, 0, ticketHeader+4*len(t.frags)+ticketMAC)
	b = append(b, ticketMagic...)
	b = append(b, ticketFormat)
	b = append(b, t.handle[:]...)
	b = binary.LittleEndian.AppendUint32(b, t.endpoint)
	b = binary.LittleEndian.AppendUint32(b, t.endpoints)
	b = binary.LittleEndian.AppendUint64(b, uint64(t.expiry.UnixNano()))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(t.frags)))
	for _, f := range t.frags {
		b = binary.LittleEndian.AppendUint32(b, f)
	}
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return m.Sum(b)
}

// decodeTicket checks and reads a ticket: its structure first (lengths,
// ranges, order), then its signature, then its expiry (now). Any failure
// is ErrTicket, saying which; a ticket past its expiry decodes with
// expired set, so the caller can say it expired rather than that it is
// forged.
func decodeTicket(key, b []byte, now time.Time) (*endpointTicket, error) {
	t, err := parseTicket(b)
	if err != nil {
		return nil, err
	}
	body := b[:len(b)-ticketMAC]
	m := hmac.New(sha256.New, key)
	m.Write(body)
	if !hmac.Equal(m.Sum(nil), b[len(body):]) {
		return nil, fmt.Errorf("%w: signature does not match (forged, altered, or issued by another server)", ErrTicket)
	}
	t.expired = now.After(t.expiry)
	return t, nil
}

// parseTicket reads a ticket's fields without checking its signature.
func parseTicket(b []byte) (*endpointTicket, error) {
	if len(b) < ticketHeader+ticketMAC {
		return nil, fmt.Errorf("%w: %d bytes, at least %d", ErrTicket, len(b), ticketHeader+ticketMAC)
	}
	if !isEndpointTicket(b) || b[4] != ticketFormat {
		return nil, fmt.Errorf("%w: not a stablerow endpoint ticket of format %d", ErrTicket, ticketFormat)
	}
	t := &endpointTicket{}
	copy(t.handle[:], b[5:21])
	t.endpoint = binary.LittleEndian.Uint32(b[21:])
	t.endpoints = binary.LittleEndian.Uint32(b[25:])
	t.expiry = time.Unix(0, int64(binary.LittleEndian.Uint64(b[29:])))
	n := binary.LittleEndian.Uint32(b[37:])
	if t.endpoints == 0 || t.endpoints > maxEndpoints || t.endpoint >= t.endpoints {
		return nil, fmt.Errorf("%w: endpoint %d of %d", ErrTicket, t.endpoint, t.endpoints)
	}
	if n == 0 || n > maxTicketFragments || uint64(len(b)) != ticketHeader+4*uint64(n)+ticketMAC {
		return nil, fmt.Errorf("%w: %d fragments in %d bytes", ErrTicket, n, len(b))
	}
	t.frags = make([]uint32, n)
	for i := range t.frags {
		t.frags[i] = binary.LittleEndian.Uint32(b[ticketHeader+4*i:])
		if i > 0 && t.frags[i] <= t.frags[i-1] {
			return nil, fmt.Errorf("%w: fragments not ascending", ErrTicket)
		}
	}
	return t, nil
}
