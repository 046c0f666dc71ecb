package rowid

import "strconv"

// Address is a physical row address: fragment_id<<32 | offset.
type Address uint64

// NewAddress packs a fragment id and a row offset.
func NewAddress(fragment, offset uint32) Address {
	return Address(uint64(fragment)<<32 | uint64(offset))
}

// Fragment is the fragment id (high 32 bits).
func (a Address) Fragment() uint32 { return uint32(a >> 32) }

// Offset is the row offset inside the fragment (low 32 bits).
func (a Address) Offset() uint32 { return uint32(a) }

// String formats the address as "f<fragment>:<offset>", e.g. "f12:345".
func (a Address) String() string {
	b := make([]byte, 0, 24)
	b = append(b, 'f')
	b = strconv.AppendUint(b, uint64(a.Fragment()), 10)
	b = append(b, ':')
	b = strconv.AppendUint(b, uint64(a.Offset()), 10)
	return string(b)
}
