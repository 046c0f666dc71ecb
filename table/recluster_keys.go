package table

import (
	"cmp"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Recluster key bounds: a destination of a recluster is the range of keys
// from its first key (its bound) up to the next destination's bound. The
// bounds travel in plans and tasks, so a key is carried as an
// order-preserving image that any worker can compare without knowing the
// column type: NULL first, then U, then B bytewise. Integer-like keys and
// floats map to U (floats so that the image order is cmp.Compare's: every
// NaN first and equal, -0 = +0), strings and binaries to B.

// KeyBound is the order-preserving image of one key value.
type KeyBound struct {
	Null bool   `json:"null,omitempty"`
	U    uint64 `json:"u,omitempty"`
	B    []byte `json:"b,omitempty"`
}

// keyImage is a KeyBound with its bytes as a string, for comparing rows'
// keys (whose string values are views of the column, not copies).
type keyImage struct {
	null bool
	u    uint64
	s    string
}

func (b KeyBound) image() keyImage { return keyImage{null: b.Null, u: b.U, s: string(b.B)} }

func (k keyImage) bound() KeyBound {
	b := KeyBound{Null: k.null, U: k.u}
	if k.s != "" {
		b.B = []byte(k.s)
	}
	return b
}

func compareImages(a, b keyImage) int {
	if a.null || b.null {
		switch {
		case a.null && b.null:
			return 0
		case a.null:
			return -1
		}
		return 1
	}
	if c := cmp.Compare(a.u, b.u); c != 0 {
		return c
	}
	return cmp.Compare(a.s, b.s)
}

// keyImages returns the image of position i of a, for the key types
// keyComparator orders.
func keyImages(a arrow.Array) (func(i int) keyImage, error) {
	const flip = 1 << 63
	var f func(i int) keyImage
	switch v := a.(type) {
	case *array.Int8:
		f = func(i int) keyImage { return keyImage{u: uint64(int64(v.Value(i))) ^ flip} }
	case *array.Int16:
		f = func(i int) keyImage { return keyImage{u: uint64(int64(v.Value(i))) ^ flip} }
	case *array.Int32:
		f = func(i int) keyImage { return keyImage{u: uint64(int64(v.Value(i))) ^ flip} }
	case *array.Int64:
		f = func(i int) keyImage { return keyImage{u: uint64(v.Value(i)) ^ flip} }
	case *array.Date32:
		f = func(i int) keyImage { return keyImage{u: uint64(int64(v.Value(i))) ^ flip} }
	case *array.Timestamp:
		f = func(i int) keyImage { return keyImage{u: uint64(int64(v.Value(i))) ^ flip} }
	case *array.Uint8:
		f = func(i int) keyImage { return keyImage{u: uint64(v.Value(i))} }
	case *array.Uint16:
		f = func(i int) keyImage { return keyImage{u: uint64(v.Value(i))} }
	case *array.Uint32:
		f = func(i int) keyImage { return keyImage{u: uint64(v.Value(i))} }
	case *array.Uint64:
		f = func(i int) keyImage { return keyImage{u: v.Value(i)} }
	case *array.Float32:
		f = func(i int) keyImage { return keyImage{u: floatImage(float64(v.Value(i)))} }
	case *array.Float64:
		f = func(i int) keyImage { return keyImage{u: floatImage(v.Value(i))} }
	case *array.String:
		f = func(i int) keyImage { return keyImage{s: v.Value(i)} }
	case *array.LargeString:
		f = func(i int) keyImage { return keyImage{s: v.Value(i)} }
	case *array.Binary:
		f = func(i int) keyImage { return keyImage{s: v.ValueString(i)} }
	default:
		return nil, errorf(ErrInvalidArgument, "recluster: cannot order keys of type %s", a.DataType())
	}
	if a.NullN() == 0 {
		return f, nil
	}
	return func(i int) keyImage {
		if a.IsNull(i) {
			return keyImage{null: true}
		}
		return f(i)
	}, nil
}

// floatImage orders floats as cmp.Compare does: NaNs (all equal) below
// -Inf, -0 equal to +0. Image 0 is free for NaN: the smallest non-NaN
// image, -Inf's, is 0x000F_FFFF_FFFF_FFFF.
func floatImage(x float64) uint64 {
	if math.IsNaN(x) {
		return 0
	}
	if x == 0 {
		x = 0 // -0 → +0
	}
	b := math.Float64bits(x)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// keyRanges labels keys by destination: destination First+i holds the
// keys from bounds[i] up to (not including) bounds[i+1], the last one up
// to upper (or without end when upper is nil).
type keyRanges struct {
	first  int
	bounds []keyImage
	upper  *keyImage
	// ubounds (then uupper, when hasUpper) are the bounds as plain
	// uint64s when every bound is a non-null number: integer keys without
	// nulls are then labelled by orderKeys images, without keyImage
	// compares.
	ubounds  []uint64
	uupper   uint64
	hasUpper bool
}

func newKeyRanges(first int, bounds []KeyBound, upper *KeyBound) keyRanges {
	r := keyRanges{first: first, bounds: make([]keyImage, len(bounds))}
	numeric := func(b KeyBound) bool { return !b.Null && len(b.B) == 0 }
	plain := true
	for i, b := range bounds {
		r.bounds[i] = b.image()
		plain = plain && numeric(b)
	}
	if upper != nil {
		u := upper.image()
		r.upper = &u
		plain = plain && numeric(*upper)
		r.uupper, r.hasUpper = upper.U, true
	}
	if plain {
		r.ubounds = make([]uint64, len(bounds))
		for i, b := range bounds {
			r.ubounds[i] = b.U
		}
	}
	return r
}

// label appends the destination of each key of col relative to First, or
// -1 for keys outside the ranges.
func (r *keyRanges) label(col arrow.Array, dst []int32) ([]int32, error) {
	if r.ubounds != nil {
		if us := orderKeys(col); us != nil {
			for _, u := range us {
				l := int32(-1)
				if !r.hasUpper || u < r.uupper {
					n, found := slices.BinarySearch(r.ubounds, u)
					if found {
						n++ // bounds at or below u
					}
					l = int32(n - 1)
				}
				dst = append(dst, l)
			}
			return dst, nil
		}
	}
	img, err := keyImages(col)
	if err != nil {
		return nil, err
	}
	for i := range col.Len() {
		dst = append(dst, int32(r.local(img(i))))
	}
	return dst, nil
}

// local returns k's destination relative to First, or -1 when k is
// outside the ranges.
func (r *keyRanges) local(k keyImage) int {
	if r.upper != nil && compareImages(k, *r.upper) >= 0 {
		return -1
	}
	// The number of bounds at or below k, less one.
	n, _ := slices.BinarySearchFunc(r.bounds, k, func(b, k keyImage) int {
		if compareImages(b, k) <= 0 {
			return -1
		}
		return 1
	})
	return n - 1
}

// strictlyIncreasing reports whether bounds (then upper, if any) are in
// strictly increasing image order.
func strictlyIncreasing(bounds []KeyBound, upper *KeyBound) bool {
	for i := 1; i < len(bounds); i++ {
		if compareImages(bounds[i-1].image(), bounds[i].image()) >= 0 {
			return false
		}
	}
	return upper == nil || len(bounds) == 0 || compareImages(bounds[len(bounds)-1].image(), upper.image()) < 0
}
