package encoding

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// The kinds of an integer stream.
const (
	intsPacked = 0 // frame of reference and bit-packing
	intsRuns   = 1 // run-length: values and lengths, each packed
)

// intsStats are what choosing a stream's encoding needs, gathered in one
// pass: the range and the runs.
type intsStats struct {
	lo, hi       uint64
	runs         int
	runLo, runHi uint64 // of the run values
	longest      int
}

func statsOf(vals []uint64) intsStats {
	if len(vals) == 0 {
		return intsStats{}
	}
	s := intsStats{lo: vals[0], hi: vals[0], runs: 1, runLo: vals[0], runHi: vals[0]}
	run := 1
	for i := 1; i < len(vals); i++ {
		v := vals[i]
		s.lo, s.hi = min(s.lo, v), max(s.hi, v)
		if v == vals[i-1] {
			run++
			continue
		}
		s.longest = max(s.longest, run)
		run = 1
		s.runs++
	}
	s.longest = max(s.longest, run)
	s.runLo, s.runHi = s.lo, s.hi // run values span the same range
	return s
}

func widthOf(lo, hi uint64) uint { return uint(bits.Len64(hi - lo)) }

// packedSize is the bytes of a packed stream of n values in [lo, hi].
func packedSize(n int, lo, hi uint64) int { return 1 + 8 + 1 + packedLen(n, widthOf(lo, hi)) }

// runsSize is the bytes of a run-length stream, or -1 when run-length
// cannot win (no repeats).
func runsSize(n int, s intsStats) int {
	if s.runs*2 > n {
		return -1
	}
	return 1 + uvarintLen(uint64(s.runs)) + packedSize(s.runs, s.runLo, s.runHi) + packedSize(s.runs, 0, uint64(s.longest-1))
}

// appendInts appends the smaller encoding of vals (runs allowed: whether
// run-length may be chosen).
func appendInts(dst []byte, vals []uint64, runs bool) []byte {
	s := statsOf(vals)
	if runs {
		if rs := runsSize(len(vals), s); rs >= 0 && rs < packedSize(len(vals), s.lo, s.hi) {
			return appendRuns(dst, vals, s.runs)
		}
	}
	return appendPacked(dst, vals, s.lo, widthOf(s.lo, s.hi))
}

func appendPacked(dst []byte, vals []uint64, base uint64, width uint) []byte {
	dst = append(dst, intsPacked)
	dst = binary.LittleEndian.AppendUint64(dst, base)
	dst = append(dst, byte(width))
	return pack(dst, vals, base, width)
}

func appendRuns(dst []byte, vals []uint64, runs int) []byte {
	values := make([]uint64, 0, runs)
	lens := make([]uint64, 0, runs)
	for i := 0; i < len(vals); {
		j := i + 1
		for j < len(vals) && vals[j] == vals[i] {
			j++
		}
		values = append(values, vals[i])
		lens = append(lens, uint64(j-i-1))
		i = j
	}
	dst = append(dst, intsRuns)
	dst = binary.AppendUvarint(dst, uint64(runs))
	dst = appendInts(dst, values, false)
	return appendInts(dst, lens, false)
}

func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// reader walks a chunk; every read checks the bytes left and records the
// first failure, after which reads return zeros.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
	r.b = nil
}

func (r *reader) u8(what string) byte {
	if len(r.b) < 1 {
		r.fail("%s: chunk ends", what)
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) u64(what string) uint64 {
	if len(r.b) < 8 {
		r.fail("%s: chunk ends", what)
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *reader) uv(what string) uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("%s: bad varint", what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a uvarint that must be at most limit.
func (r *reader) count(what string, limit int) int {
	v := r.uv(what)
	if r.err == nil && v > uint64(limit) {
		r.fail("%s: %d, at most %d", what, v, limit)
		return 0
	}
	return int(v)
}

func (r *reader) bytes(what string, n int) []byte {
	if n < 0 || len(r.b) < n {
		r.fail("%s: %d bytes, %d left", what, n, len(r.b))
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// ints decodes an integer stream of len(dst) values into dst through conv
// (which maps the stream's uint64 to the column's type), run-length only
// when runs is true. The values themselves are the caller's to check
// (codes against the dictionary, lengths against the bytes).
func ints[T intLike](r *reader, dst []T, runs bool, flip uint64) {
	switch kind := r.u8("integer stream kind"); {
	case r.err != nil:
	case kind == intsPacked:
		base := r.u64("base")
		width := uint(r.u8("width"))
		if r.err != nil {
			return
		}
		if width > 64 {
			r.fail("bit width %d", width)
			return
		}
		src := r.bytes("packed values", packedLen(len(dst), width))
		if r.err != nil {
			return
		}
		unpack(dst, src, base, width, flip)
	case kind == intsRuns && runs:
		n := r.count("runs", len(dst))
		if r.err != nil {
			return
		}
		if n == 0 && len(dst) > 0 {
			r.fail("no runs for %d values", len(dst))
			return
		}
		values := make([]T, n)
		lens := make([]uint64, n) // each run's length - 1
		ints(r, values, false, flip)
		ints(r, lens, false, 0)
		if r.err != nil {
			return
		}
		at := 0
		for k, l := range lens {
			if l >= uint64(len(dst)-at) {
				r.fail("runs cover more than %d values", len(dst))
				return
			}
			v := values[k]
			end := at + int(l) + 1
			for j := at; j < end; j++ {
				dst[j] = v
			}
			at = end
		}
		if at != len(dst) {
			r.fail("runs cover %d of %d values", at, len(dst))
		}
	default:
		r.fail("integer stream kind %d", kind)
	}
}
