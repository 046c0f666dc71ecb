package server

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
)

var fuzzKey = bytes.Repeat([]byte{7}, 32)

func sampleTicket() *endpointTicket {
	return &endpointTicket{handle: [16]byte{1, 2, 3}, endpoint: 1, endpoints: 3, expiry: time.Unix(2000000000, 5), frags: []uint32{4, 9, 1 << 31}}
}

// TestTicketRoundTrip: a ticket decodes to what was encoded; expiry is
// reported, not hidden; every structural fault is ErrTicket, an
// InvalidArgument.
func TestTicketRoundTrip(t *testing.T) {
	tk := sampleTicket()
	b := tk.encode(fuzzKey)
	got, err := decodeTicket(fuzzKey, b, time.Unix(1900000000, 0))
	require.NoError(t, err)
	require.False(t, got.expired)
	require.Equal(t, tk.handle, got.handle)
	require.Equal(t, tk.frags, got.frags)
	require.Equal(t, tk.endpoint, got.endpoint)
	require.Equal(t, tk.endpoints, got.endpoints)
	require.True(t, tk.expiry.Equal(got.expiry))
	got, err = decodeTicket(fuzzKey, b, time.Unix(2100000000, 0))
	require.NoError(t, err)
	require.True(t, got.expired)

	for _, bad := range []*endpointTicket{
		{endpoints: 0, frags: []uint32{1}},
		{endpoint: 3, endpoints: 3, frags: []uint32{1}},
		{endpoints: maxEndpoints + 1, frags: []uint32{1}},
		{endpoints: 1},
		{endpoints: 1, frags: []uint32{5, 5}},
		{endpoints: 1, frags: []uint32{5, 4}},
	} {
		_, err := decodeTicket(fuzzKey, bad.encode(fuzzKey), time.Now())
		require.ErrorIs(t, err, ErrTicket, "%+v", bad)
		require.Equal(t, errkind.InvalidArgument, errkind.Of(err))
	}
	_, err = decodeTicket(bytes.Repeat([]byte{8}, 32), b, time.Now())
	require.ErrorIs(t, err, ErrTicket)
	require.ErrorContains(t, err, "signature")
}

// FuzzEndpointTicket: any bytes decode to a ticket or ErrTicket, never a
// panic; a ticket that decodes under the key re-encodes to the same bytes
// (nothing in it is ignored), and one changed after signing never does.
func FuzzEndpointTicket(f *testing.F) {
	good := sampleTicket().encode(fuzzKey)
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add([]byte("SRPT"))
	f.Add([]byte{})
	one := (&endpointTicket{endpoints: 1, frags: []uint32{0}}).encode(fuzzKey)
	f.Add(one)
	f.Fuzz(func(t *testing.T, b []byte) {
		tk, err := decodeTicket(fuzzKey, b, time.Now())
		if err != nil {
			if !errors.Is(err, ErrTicket) {
				t.Fatalf("error %v is not ErrTicket", err)
			}
			return
		}
		if !bytes.Equal(tk.encode(fuzzKey), b) {
			t.Fatalf("decoded ticket does not re-encode to its bytes")
		}
		if _, err := parseTicket(b); err != nil {
			t.Fatalf("decoded but does not parse: %v", err)
		}
	})
}
