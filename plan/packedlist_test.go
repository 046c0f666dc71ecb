package plan

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// packedOf writes vals (a []int32, []int64, []float64 or []string) and
// null as a packed list.
func packedOf(t testing.TB, vals any, null bool) *anypb.Any {
	var w *PackedWriter
	switch v := vals.(type) {
	case []int32:
		w = NewPackedWriter(PackedI32, len(v), 0)
		for _, x := range v {
			w.Int(int64(x))
		}
	case []int64:
		w = NewPackedWriter(PackedI64, len(v), 0)
		for _, x := range v {
			w.Int(x)
		}
	case []float64:
		w = NewPackedWriter(PackedF64, len(v), 0)
		for _, x := range v {
			w.Float(x)
		}
	case []string:
		w = NewPackedWriter(PackedString, len(v), 0)
		for _, x := range v {
			w.String(x)
		}
	}
	if null {
		w.Null()
	}
	a, err := w.Any()
	require.NoError(t, err)
	return a
}

// TestPackedListRoundTrip: what the writer writes the decoder reads back,
// for each kind, with and without NULL, at lengths whose BytesValue
// length takes one to three varint bytes; and the Any is exactly the
// BytesValue protobuf would marshal (so protojson and any other reader
// see the same payload).
func TestPackedListRoundTrip(t *testing.T) {
	big := make([]int64, 20_000)
	for i := range big {
		big[i] = int64(i*7) - 3
	}
	for _, tc := range []struct {
		vals any
		null bool
	}{
		{[]int32{1, -2, math.MaxInt32, math.MinInt32}, false},
		{[]int64{math.MinInt64, 0, 5}, true},
		{big, false},
		{[]float64{1.5, math.Inf(-1), math.NaN(), -0.0}, false},
		{[]string{"", "a", "it's", "ünï", ""}, true},
		{[]string{}, true},
		{[]int64{}, true},
	} {
		a := packedOf(t, tc.vals, tc.null)
		var bv wrapperspb.BytesValue
		require.NoError(t, a.UnmarshalTo(&bv))
		again, err := proto.Marshal(&bv)
		require.NoError(t, err)
		require.Equal(t, again, a.GetValue(), "the Any holds BytesValue's own encoding")
		l, err := DecodePackedList(a)
		require.NoError(t, err)
		require.Equal(t, tc.null, l.Null)
		if f, ok := tc.vals.([]float64); ok {
			got := l.Values.([]float64)
			for i := range f {
				require.Equal(t, math.Float64bits(f[i]), math.Float64bits(got[i]))
			}
			continue
		}
		require.Equal(t, tc.vals, l.Values)
	}
}

// TestPackedListRefusesMalformed: every truncation of a valid payload,
// every byte of its header changed, and the other broken rules each give
// ErrInvalidPlan, not a panic or a list.
func TestPackedListRefusesMalformed(t *testing.T) {
	for _, vals := range []any{[]int64{1, 2, 3}, []string{"ab", "c"}} {
		payload := payload(t, packedOf(t, vals, false))
		for n := range len(payload) {
			_, err := decodePacked(payload[:n])
			require.ErrorIs(t, err, ErrInvalidPlan, "truncated to %d", n)
		}
		for i := range packedHeader {
			p := append([]byte(nil), payload...)
			p[i] ^= 0x40
			_, err := decodePacked(p)
			require.ErrorIs(t, err, ErrInvalidPlan, "header byte %d", i)
		}
		_, err := decodePacked(append(append([]byte(nil), payload...), 0))
		require.ErrorIs(t, err, ErrInvalidPlan, "a byte past the end")
	}
	str := payload(t, packedOf(t, []string{"ab", "c"}, false))
	for name, mutate := range map[string]func(p []byte){
		"first offset not 0":   func(p []byte) { binary.LittleEndian.PutUint32(p[12:], 1) },
		"decreasing offsets":   func(p []byte) { binary.LittleEndian.PutUint32(p[20:], 1) },
		"offset past the data": func(p []byte) { binary.LittleEndian.PutUint32(p[16:], 9) },
		"invalid UTF-8":        func(p []byte) { p[len(p)-1] = 0xff },
	} {
		p := append([]byte(nil), str...)
		mutate(p)
		_, err := decodePacked(p)
		require.ErrorIs(t, err, ErrInvalidPlan, name)
	}
	empty := payload(t, packedOf(t, []int64{}, false))
	_, err := decodePacked(empty)
	require.ErrorIs(t, err, ErrInvalidPlan, "empty list")
	for name, a := range map[string]*anypb.Any{
		"nil":         nil,
		"other type":  {TypeUrl: "type.googleapis.com/google.protobuf.StringValue", Value: []byte{0x0a, 0}},
		"no field 1":  {TypeUrl: bytesValueURL, Value: []byte{0x12, 0}},
		"long length": {TypeUrl: bytesValueURL, Value: []byte{0x0a, 5, 1}},
	} {
		_, err := DecodePackedList(a)
		require.ErrorIs(t, err, ErrInvalidPlan, name)
	}
}

// payload is the BytesValue's bytes of a packed list's Any.
func payload(t testing.TB, a *anypb.Any) []byte {
	var bv wrapperspb.BytesValue
	require.NoError(t, a.UnmarshalTo(&bv))
	return bv.GetValue()
}

// FuzzPackedList: the decoder never panics, refuses with ErrInvalidPlan,
// and what it accepts writes back to the same payload (the format has
// one encoding of each list). Seeds in testdata/fuzz/FuzzPackedList.
func FuzzPackedList(f *testing.F) {
	f.Add(payload(f, packedOf(f, []int64{9, 2, 5, 4}, false)))
	f.Add(payload(f, packedOf(f, []int32{-1}, true)))
	f.Add(payload(f, packedOf(f, []float64{0.5, math.NaN()}, false)))
	f.Add(payload(f, packedOf(f, []string{"row 2", "", "ü"}, true)))
	f.Fuzz(func(t *testing.T, p []byte) {
		l, err := decodePacked(p)
		if err != nil {
			if !errors.Is(err, ErrInvalidPlan) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if got := payload(t, packedOf(t, l.Values, l.Null)); string(got) != string(p) {
			t.Fatalf("decoded %v (null %v), which writes as %x, not %x", l.Values, l.Null, got, p)
		}
		bv, err := proto.Marshal(wrapperspb.Bytes(p))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodePackedList(&anypb.Any{TypeUrl: bytesValueURL, Value: bv}); err != nil {
			t.Fatalf("payload accepted, its Any refused: %v", err)
		}
	})
}
