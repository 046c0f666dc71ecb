package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeFixed gathers rows idx of a fixed-width column (integers, floats,
// dates, timestamps, decimals) into a new array; idxNull[i] (nil: none)
// makes row i NULL. ok is false for other types (booleans, strings, ...),
// which go through compute.TakeArray.
//
// Why it exists: arrow-go's compute executor runs every call on a new
// goroutine and hands the result back over a channel. The join's output
// gather calls it per column per batch; with the partitions of a parallel
// plan competing for the CPUs, each handoff waited for the scheduler and
// the parallel join ran slower than the serial one (BENCHMARKS.md,
// "Parallel execution"). A plain copy has no handoff.
func takeFixed(mem memory.Allocator, a arrow.Array, idx []int32, idxNull []bool) (arrow.Array, bool) {
	fw, ok := a.DataType().(arrow.FixedWidthDataType)
	if !ok || fw.BitWidth() < 8 || fw.BitWidth()%8 != 0 || a.DataType().ID() == arrow.DICTIONARY || a.DataType().ID() == arrow.EXTENSION {
		return nil, false
	}
	bufs := a.Data().Buffers()
	if len(bufs) != 2 || bufs[1] == nil {
		return nil, false
	}
	w := fw.BitWidth() / 8
	src := bufs[1].Bytes()[a.Data().Offset()*w:]
	n := len(idx)
	data := memory.NewResizableBuffer(mem)
	data.Resize(n * w)
	dst := data.Bytes()
	var valid *memory.Buffer
	nulls := 0
	hasNulls := a.NullN() > 0 || idxNull != nil
	var vb []byte
	if hasNulls {
		valid = memory.NewResizableBuffer(mem)
		valid.Resize(int(bitutil.BytesForBits(int64(n))))
		vb = valid.Bytes()
		clear(vb)
	}
	for i, j := range idx {
		if hasNulls && ((idxNull != nil && idxNull[i]) || a.IsNull(int(j))) {
			nulls++
			clear(dst[i*w : (i+1)*w])
			continue
		}
		copy(dst[i*w:(i+1)*w], src[int(j)*w:(int(j)+1)*w])
		if hasNulls {
			bitutil.SetBit(vb, i)
		}
	}
	d := array.NewData(a.DataType(), n, []*memory.Buffer{valid, data}, nil, nulls, 0)
	data.Release()
	if valid != nil {
		valid.Release()
	}
	defer d.Release()
	return array.MakeFromData(d), true
}
