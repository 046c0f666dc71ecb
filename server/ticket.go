package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/stablerow/stablerow/errkind"
)

// ErrTicket: a partition ticket that is garbled, forged, of another
// server (or an earlier run of this one), or expired.
var ErrTicket = errkind.New(errkind.InvalidArgument, "server: bad partition ticket")

// A partition ticket names one endpoint of a partitioned take: which take
// (a random handle), which partition of how many, the fragments of its
// group, and until when it is valid. It is signed with a key the server
// draws when it starts, so a client can neither forge one nor change the
// group it names; every field is checked before anything is looked up.
//
//	offset  size     field
//	0       4        magic "SRPT"
//	4       1        format (1)
//	5       16       take handle
//	21      4        partition (little endian, < partitions)
//	25      4        partitions (1..maxPartitions)
//	29      8        expiry, Unix nanoseconds
//	37      4        n, the fragments of the group (1..maxTicketFragments)
//	41      4n       the fragment ids, ascending
//	41+4n   32       HMAC-SHA256 of the bytes before it
//
// It travels as the statement handle of a Flight SQL TicketStatementQuery,
// so any Flight SQL client's DoGet routes it here; results' own handles
// are 32 hex characters and never start with the magic.
type partTicket struct {
	handle  [16]byte
	part    uint32
	parts   uint32
	expiry  time.Time
	frags   []uint32
	expired bool // set by decode: valid but past its expiry
}

const (
	ticketMagic        = "SRPT"
	ticketFormat       = 1
	ticketHeader       = 41
	ticketMAC          = sha256.Size
	maxPartitions      = 1 << 10
	maxTicketFragments = 1 << 20
)

// isPartTicket tells a partition ticket from a result handle.
func isPartTicket(b []byte) bool { return len(b) >= len(ticketMagic) && string(b[:4]) == ticketMagic }

// encode writes t signed with key.
func (t *partTicket) encode(key []byte) []byte {
	b := make([]byte, 0, ticketHeader+4*len(t.frags)+ticketMAC)
	b = append(b, ticketMagic...)
	b = append(b, ticketFormat)
	b = append(b, t.handle[:]...)
	b = binary.LittleEndian.AppendUint32(b, t.part)
	b = binary.LittleEndian.AppendUint32(b, t.parts)
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
func decodeTicket(key, b []byte, now time.Time) (*partTicket, error) {
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
func parseTicket(b []byte) (*partTicket, error) {
	if len(b) < ticketHeader+ticketMAC {
		return nil, fmt.Errorf("%w: %d bytes, at least %d", ErrTicket, len(b), ticketHeader+ticketMAC)
	}
	if !isPartTicket(b) || b[4] != ticketFormat {
		return nil, fmt.Errorf("%w: not a stablerow partition ticket of format %d", ErrTicket, ticketFormat)
	}
	t := &partTicket{}
	copy(t.handle[:], b[5:21])
	t.part = binary.LittleEndian.Uint32(b[21:])
	t.parts = binary.LittleEndian.Uint32(b[25:])
	t.expiry = time.Unix(0, int64(binary.LittleEndian.Uint64(b[29:])))
	n := binary.LittleEndian.Uint32(b[37:])
	if t.parts == 0 || t.parts > maxPartitions || t.part >= t.parts {
		return nil, fmt.Errorf("%w: partition %d of %d", ErrTicket, t.part, t.parts)
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
