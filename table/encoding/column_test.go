package encoding

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// types are every column type a table stores.
var types = []arrow.DataType{
	arrow.FixedWidthTypes.Boolean,
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
	arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
	arrow.BinaryTypes.String, arrow.BinaryTypes.Binary,
	arrow.FixedWidthTypes.Date32, &arrow.TimestampType{Unit: arrow.Microsecond},
	&arrow.Decimal128Type{Precision: 15, Scale: 2}, &arrow.Decimal128Type{Precision: 38, Scale: 0},
}

// shapes are the data shapes each type is tried with: they steer Encode
// to every encoding (narrow ranges and runs to ints, few strings to a
// dictionary, extremes to plain).
var shapes = []string{"random", "narrow", "runs", "one value", "extremes", "all null", "no rows", "words"}

// gen builds n values of t in the given shape, nulls at rate nullRate.
func gen(rng *rand.Rand, t arrow.DataType, shape string, n int, nullRate float64) arrow.Array {
	b := array.NewBuilder(memory.DefaultAllocator, t)
	defer b.Release()
	pick := func(i int) int64 { // the shape's integer for row i
		switch shape {
		case "narrow":
			return rng.Int64N(100) - 50
		case "runs":
			return int64(i/37) * 3
		case "one value":
			return -7
		case "extremes":
			return []int64{math.MinInt64, math.MaxInt64, 0, -1}[rng.IntN(4)]
		}
		return int64(rng.Uint64())
	}
	for i := range n {
		if shape == "all null" || rng.Float64() < nullRate {
			b.AppendNull()
			continue
		}
		v := pick(i)
		switch bb := b.(type) {
		case *array.BooleanBuilder:
			bb.Append(v&1 == 1)
		case *array.Int8Builder:
			bb.Append(int8(v))
		case *array.Int16Builder:
			bb.Append(int16(v))
		case *array.Int32Builder:
			bb.Append(int32(v))
		case *array.Int64Builder:
			bb.Append(v)
		case *array.Uint8Builder:
			bb.Append(uint8(v))
		case *array.Uint16Builder:
			bb.Append(uint16(v))
		case *array.Uint32Builder:
			bb.Append(uint32(v))
		case *array.Uint64Builder:
			bb.Append(uint64(v))
		case *array.Float32Builder:
			bb.Append([]float32{float32(v), float32(math.NaN()), math.Float32frombits(1<<31 | 1), float32(math.Copysign(0, -1)), math.Float32frombits(0x7fc00001)}[rng.IntN(5)])
		case *array.Float64Builder:
			bb.Append([]float64{float64(v), math.NaN(), math.Copysign(0, -1), math.Inf(-1), math.Float64frombits(0x7ff8000000000001)}[rng.IntN(5)])
		case *array.StringBuilder:
			if shape == "words" { // distinct, but compressible
				bb.Append(fmt.Sprintf("the %s of %d %s", words[rng.IntN(4)], v%1000, words[rng.IntN(4)]))
				continue
			}
			s := fmt.Sprintf("s%d", v)
			bb.Append(s[:1+rng.IntN(len(s))] + fmt.Sprint(v))
		case *array.BinaryBuilder:
			s := fmt.Sprint(v)
			bb.Append([]byte(s)[:rng.IntN(len(s)+1)])
		case *array.Date32Builder:
			bb.Append(arrow.Date32(v))
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(v))
		case *array.Decimal128Builder:
			hi := int64(0)
			if shape == "random" || shape == "extremes" {
				hi = v >> 3 // beyond 64 bits, negative too
			} else if v < 0 {
				hi = -1
			}
			bb.Append(decimal128.New(hi, uint64(v)))
		}
	}
	return b.NewArray()
}

var words = []string{"quickly final", "furiously even", "carefully regular", "blithely ironic"}

// sameBits compares two arrays value by value, floats by their bits (so
// NaN payloads and -0 count).
func sameBits(a, b arrow.Array) bool {
	if a.Len() != b.Len() || a.NullN() != b.NullN() {
		return false
	}
	for i := range a.Len() {
		if a.IsNull(i) != b.IsNull(i) {
			return false
		}
		if a.IsNull(i) {
			continue
		}
		switch x := a.(type) {
		case *array.Float32:
			if math.Float32bits(x.Value(i)) != math.Float32bits(b.(*array.Float32).Value(i)) {
				return false
			}
		case *array.Float64:
			if math.Float64bits(x.Value(i)) != math.Float64bits(b.(*array.Float64).Value(i)) {
				return false
			}
		default:
			if x.ValueStr(i) != b.ValueStr(i) {
				return false
			}
		}
	}
	return true
}

// TestRoundTrip encodes and decodes every type in every shape, with and
// without nulls, from a slice at an offset, checking the values (floats
// bit-exact) and that no allocation is left behind.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	encs := map[string]map[byte]bool{}
	for _, typ := range types {
		encs[typ.String()] = map[byte]bool{}
		for _, shape := range shapes {
			for _, nulls := range []float64{0, 0.3} {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				full := gen(rng, typ, shape, 700, nulls)
				rows := int64(500)
				if shape == "no rows" {
					rows = 0
				}
				a := array.NewSlice(full, 3, 3+rows)
				chunk, err := Encode(nil, a)
				if err != nil {
					t.Fatalf("%s %s: %v", typ, shape, err)
				}
				encs[typ.String()][chunk[0]] = true
				got, err := Decode(typ, a.Len(), chunk, mem)
				if err != nil {
					t.Fatalf("%s %s nulls %v: decode: %v", typ, shape, nulls, err)
				}
				if !sameBits(a, got) {
					t.Errorf("%s %s nulls %v: round trip differs:\n%v\n%v", typ, shape, nulls, a, got)
				}
				if err := validate(got); err != nil {
					t.Errorf("%s %s: %v", typ, shape, err)
				}
				got.Release()
				a.Release()
				full.Release()
				mem.AssertSize(t, 0)
			}
		}
	}
	// Each encoding a type has must have been written by some shape.
	want := map[arrow.Type][]byte{arrow.INT32: {encPlain, encInts}, arrow.UINT64: {encPlain, encInts},
		arrow.STRING: {encPlain, encDict, encLZ4}, arrow.DECIMAL128: {encPlain, encInts}, arrow.DATE32: {encPlain, encInts}}
	for _, typ := range types {
		for _, e := range want[typ.ID()] {
			if !encs[typ.String()][e] {
				t.Errorf("%s: no shape wrote encoding %d", typ, e)
			}
		}
	}
}

// TestDecodeDamaged checks that every truncation and single-byte change
// of chunks of each type decodes to an error wrapping ErrCorrupt or to
// some array, never a panic, and that every truncation is an error.
func TestDecodeDamaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	for _, typ := range types {
		for _, shape := range []string{"narrow", "runs", "random"} {
			a := gen(rng, typ, shape, 60, 0.2)
			chunk, err := Encode(nil, a)
			if err != nil {
				t.Fatal(err)
			}
			for n := range len(chunk) {
				if _, err := Decode(typ, a.Len(), chunk[:n], mem); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%s %s: truncated to %d of %d bytes: %v", typ, shape, n, len(chunk), err)
				}
			}
			for i := range chunk {
				for _, x := range []byte{1, 0x80, 0xff} {
					c := append([]byte(nil), chunk...)
					c[i] ^= x
					got, err := Decode(typ, a.Len(), c, mem)
					if err != nil {
						if !errors.Is(err, ErrCorrupt) {
							t.Fatalf("%s: %v", typ, err)
						}
						continue
					}
					if err := validate(got); err != nil {
						t.Fatalf("%s %s: byte %d ^ %#x: decoded an invalid array: %v", typ, shape, i, x, err)
					}
					got.Release()
				}
			}
			a.Release()
		}
	}
	mem.AssertSize(t, 0)
}

// validate runs arrow-go's full validation where the array has one
// (strings and binaries: offsets within their values).
func validate(a arrow.Array) error {
	if a.DataType().ID() == arrow.STRING {
		// Bytes flipped inside a value may not be UTF-8; table's CRCs
		// catch those. What matters here is the offsets.
		d := array.NewData(arrow.BinaryTypes.Binary, a.Len(), a.Data().Buffers(), nil, a.NullN(), 0)
		defer d.Release()
		a = array.MakeFromData(d)
		defer a.Release()
	}
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		return v.ValidateFull()
	}
	return nil
}
