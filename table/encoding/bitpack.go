package encoding

import (
	"encoding/binary"
	"math/bits"
)

// packedLen is the byte length of n values packed at width bits.
func packedLen(n int, width uint) int {
	hi, lo := bits.Mul64(uint64(n), uint64(width))
	if hi != 0 || lo > 1<<62 {
		return -1
	}
	return int((lo + 7) / 8)
}

// pack appends vals[i]-base, each at width bits, little-endian bit order.
func pack(dst []byte, vals []uint64, base uint64, width uint) []byte {
	if width == 0 {
		return dst
	}
	var acc uint64
	var have uint
	for _, v := range vals {
		d := v - base
		acc |= d << have
		if have+width >= 64 {
			dst = binary.LittleEndian.AppendUint64(dst, acc)
			spill := have + width - 64
			if width-spill < 64 {
				acc = d >> (width - spill)
			} else {
				acc = 0
			}
			have = spill
		} else {
			have += width
		}
	}
	for ; have > 0; have -= min(have, 8) {
		dst = append(dst, byte(acc))
		acc >>= 8
	}
	return dst
}

// intLike are the types integer streams decode into: the bits of
// (base + offset) ^ flip, truncated to the type (flip undoes the sign
// flip of signed keys).
type intLike interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// unpack writes the len(dst) values packed at width in src (which the
// caller checked holds packedLen(len(dst), width) bytes) into dst. Whole
// blocks of 64 values go through the width's kernel (unpack_gen.go: a
// bounds check a block, constant shifts); the rest one unaligned load per
// value while 8 bytes remain, the last few values byte by byte.
func unpack[T intLike](dst []T, src []byte, base uint64, width uint, flip uint64) {
	n := len(dst)
	if width == 0 {
		v := T(base ^ flip)
		for i := range dst {
			dst[i] = v
		}
		return
	}
	i := 0
	if n >= 64 {
		kernel := blockKernels[width]
		var block [64]uint64
		for ; i+64 <= n; i += 64 {
			kernel(&block, src[uint(i)/8*width:], base)
			d := (*[64]T)(dst[i : i+64])
			for j, v := range &block {
				d[j] = T(v ^ flip)
			}
		}
	}
	unpackTail(dst, src, i, base, width, flip)
}

// unpackTail is unpack of dst[from:] (a block's worth of values or fewer
// at the end of a stream).
func unpackTail[T intLike](dst []T, src []byte, from int, base uint64, width uint, flip uint64) {
	n := len(dst)
	mask := uint64(1)<<width - 1
	if width == 64 {
		mask = ^uint64(0)
	}
	i := from
	if width <= 56 && len(src) >= 8 {
		// One unaligned load per value while it stays in src.
		fast := min((len(src)-8)*8/int(width), n)
		pos := uint(i) * width
		for ; i < fast; i++ {
			w := binary.LittleEndian.Uint64(src[pos>>3:])
			dst[i] = T((base + (w>>(pos&7))&mask) ^ flip)
			pos += width
		}
	}
	for ; i < n; i++ {
		dst[i] = T((base + slowBits(src, uint64(i)*uint64(width), width)) ^ flip)
	}
}

// slowBits reads width bits at bit position pos of src.
func slowBits(src []byte, pos uint64, width uint) uint64 {
	var v uint64
	for k := uint(0); k < width; {
		b := uint64(src[(pos+uint64(k))>>3]) >> ((pos + uint64(k)) & 7)
		take := min(width-k, 8-uint((pos+uint64(k))&7))
		v |= (b & (1<<take - 1)) << k
		k += take
	}
	return v
}

// unpackDecimal is unpack of len(nums)/2 offsets (packed at width in src
// from base) into decimal128 values (lo, hi words) of base (bl, bh) plus
// the offset, carried: one pass where unpacking into the buffer and then
// adding took two.
func unpackDecimal(nums []uint64, src []byte, base uint64, width uint, bl, bh uint64) {
	n := len(nums) / 2
	if width == 0 {
		lo, carry := bits.Add64(bl, base, 0)
		for i := range n {
			nums[2*i], nums[2*i+1] = lo, bh+carry
		}
		return
	}
	i := 0
	if n >= 64 {
		kernel := blockKernels[width]
		var block [64]uint64
		for ; i+64 <= n; i += 64 {
			kernel(&block, src[uint(i)/8*width:], base)
			d := (*[128]uint64)(nums[2*i : 2*i+128])
			for j, v := range &block {
				lo, carry := bits.Add64(bl, v, 0)
				d[2*j], d[2*j+1] = lo, bh+carry
			}
		}
	}
	mask := uint64(1)<<width - 1
	if width == 64 {
		mask = ^uint64(0)
	}
	if width <= 56 && len(src) >= 8 {
		fast := min((len(src)-8)*8/int(width), n)
		pos := uint(i) * width
		for ; i < fast; i++ {
			w := binary.LittleEndian.Uint64(src[pos>>3:])
			lo, carry := bits.Add64(bl, base+(w>>(pos&7))&mask, 0)
			nums[2*i], nums[2*i+1] = lo, bh+carry
			pos += width
		}
	}
	for ; i < n; i++ {
		lo, carry := bits.Add64(bl, base+slowBits(src, uint64(i)*uint64(width), width), 0)
		nums[2*i], nums[2*i+1] = lo, bh+carry
	}
}
