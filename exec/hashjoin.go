package exec

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
)

// JoinType selects INNER or LEFT (outer) join.
type JoinType int

const (
	JoinInner JoinType = iota
	JoinLeft
)

func (j JoinType) String() string {
	if j == JoinLeft {
		return "Left"
	}
	return "Inner"
}

// HashJoinExec is an equi-join: it builds a hash table on the right input and
// probes the left in order, so the left ordering is preserved. Output is left
// columns then right columns (right nullable for LEFT). NULL keys never match.
type HashJoinExec struct {
	left, right Node
	lkeys       []int
	rkeys       []int
	typ         JoinType
	schema      *arrow.Schema
	metrics     Metrics
}

func joinKeyOK(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.BOOL:
		return true
	}
	return false
}

func NewHashJoinExec(left, right Node, leftKeys, rightKeys []int, typ JoinType) (*HashJoinExec, error) {
	if len(leftKeys) == 0 || len(leftKeys) != len(rightKeys) {
		return nil, fmt.Errorf("%w: join needs equal, non-empty key lists", ErrInvalidArgument)
	}
	if typ != JoinInner && typ != JoinLeft {
		return nil, fmt.Errorf("%w: join type %d", ErrInvalidArgument, typ)
	}
	ls, rs := left.Schema(), right.Schema()
	for i := range leftKeys {
		l, r := leftKeys[i], rightKeys[i]
		if l < 0 || l >= ls.NumFields() || r < 0 || r >= rs.NumFields() {
			return nil, fmt.Errorf("%w: join key %d out of range", ErrInvalidArgument, i)
		}
		lt, rt := ls.Field(l).Type, rs.Field(r).Type
		if !arrow.TypeEqual(lt, rt) {
			return nil, fmt.Errorf("%w: join key %d types %s and %s differ", ErrSchema, i, lt, rt)
		}
		if !joinKeyOK(lt) {
			return nil, fmt.Errorf("%w: join key type %s", ErrInvalidArgument, lt)
		}
	}
	fields := append([]arrow.Field{}, ls.Fields()...)
	for _, f := range rs.Fields() {
		if typ == JoinLeft {
			f.Nullable = true
		}
		fields = append(fields, f)
	}
	return &HashJoinExec{left: left, right: right, lkeys: append([]int{}, leftKeys...), rkeys: append([]int{}, rightKeys...),
		typ: typ, schema: arrow.NewSchema(fields, nil)}, nil
}

func (h *HashJoinExec) Name() string          { return "HashJoinExec" }
func (h *HashJoinExec) Schema() *arrow.Schema { return h.schema }
func (h *HashJoinExec) Children() []Node      { return []Node{h.left, h.right} }
func (h *HashJoinExec) Metrics() *Metrics     { return &h.metrics }
func (h *HashJoinExec) Properties() Properties {
	return Properties{Ordering: h.left.Properties().Ordering}
}
func (h *HashJoinExec) String() string {
	on := make([]string, len(h.lkeys))
	for i := range h.lkeys {
		on[i] = fmt.Sprintf("(%s, %s)", h.left.Schema().Field(h.lkeys[i]).Name, h.right.Schema().Field(h.rkeys[i]).Name)
	}
	return fmt.Sprintf("HashJoinExec: type=%s on=[%s]", h.typ, strings.Join(on, ", "))
}

func (h *HashJoinExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	return &hashJoinStream{n: h, tc: tc, co: NewCoalescer(h.schema, tc.mem(), tc.batchSize())}, nil
}

// hashJoinStream states: build (table == nil) -> probe -> drain coalescer -> EOF.
type hashJoinStream struct {
	n      *HashJoinExec
	tc     *TaskContext
	left   Stream
	build  arrow.RecordBatch
	head   map[string]int32 // encoded key -> first build row
	headU  map[uint64]int32 // the same for one integer key column (no encoding)
	intKey bool
	next   []int32 // chain of build rows with equal key, -1 ends
	tail   []int32
	co     *Coalescer
	built  bool
	eof    bool
	buf    []byte
	closed bool
}

func (s *hashJoinStream) Schema() *arrow.Schema { return s.n.schema }

func (s *hashJoinStream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.co.Release()
	if s.build != nil {
		s.build.Release()
		s.build = nil
	}
	if s.left != nil {
		return s.left.Close()
	}
	return nil
}

// intKeys returns a value reader when cols is one integer column.
func intKeys(cols []arrow.Array) (func(int) uint64, bool) {
	if len(cols) != 1 {
		return nil, false
	}
	switch a := cols[0].(type) {
	case *array.Int64:
		v := a.Int64Values()
		return func(r int) uint64 { return uint64(v[r]) }, true
	case *array.Uint64:
		v := a.Uint64Values()
		return func(r int) uint64 { return v[r] }, true
	case *array.Int32:
		v := a.Int32Values()
		return func(r int) uint64 { return uint64(int64(v[r])) }, true
	case *array.Uint32:
		v := a.Uint32Values()
		return func(r int) uint64 { return uint64(v[r]) }, true
	}
	return nil, false
}

// encodeKey appends row's key bytes to buf; ok is false if any key is NULL.
func encodeKey(buf []byte, cols []arrow.Array, row int) ([]byte, bool) {
	for _, c := range cols {
		if c.IsNull(row) {
			return buf, false
		}
		switch a := c.(type) {
		case *array.Int8:
			buf = append(buf, byte(a.Value(row)))
		case *array.Int16:
			buf = binary.LittleEndian.AppendUint16(buf, uint16(a.Value(row)))
		case *array.Int32:
			buf = binary.LittleEndian.AppendUint32(buf, uint32(a.Value(row)))
		case *array.Int64:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(row)))
		case *array.Uint8:
			buf = append(buf, a.Value(row))
		case *array.Uint16:
			buf = binary.LittleEndian.AppendUint16(buf, a.Value(row))
		case *array.Uint32:
			buf = binary.LittleEndian.AppendUint32(buf, a.Value(row))
		case *array.Uint64:
			buf = binary.LittleEndian.AppendUint64(buf, a.Value(row))
		case *array.Float32:
			f := a.Value(row)
			if f == 0 {
				f = 0 // -0 == +0
			}
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
		case *array.Float64:
			f := a.Value(row)
			if f == 0 {
				f = 0
			}
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(f))
		case *array.String:
			v := a.Value(row)
			buf = binary.LittleEndian.AppendUint32(buf, uint32(len(v))) // length prefix keeps multi-key encodings unambiguous
			buf = append(buf, v...)
		case *array.Boolean:
			b := byte(0)
			if a.Value(row) {
				b = 1
			}
			buf = append(buf, b)
		}
	}
	return buf, true
}

func (s *hashJoinStream) doBuild(ctx context.Context) error {
	in, err := s.n.right.Execute(ctx, s.tc)
	if err != nil {
		return err
	}
	bs, err := Collect(ctx, in)
	if err != nil {
		return err
	}
	defer func() {
		for _, b := range bs {
			b.Release()
		}
	}()
	start := time.Now()
	defer s.n.metrics.since(start)
	if len(bs) == 0 {
		cols := emptyCols(s.n.right.Schema(), s.tc)
		bs = append(bs, array.NewRecordBatch(s.n.right.Schema(), cols, 0))
		for _, c := range cols {
			c.Release()
		}
	}
	all, err := concatBatches(s.n.right.Schema(), s.tc.mem(), bs)
	if err != nil {
		return err
	}
	s.build = all
	n := int(all.NumRows())
	if n > math.MaxInt32 {
		return fmt.Errorf("%w: build side has %d rows", ErrInvalidArgument, n)
	}
	cols := make([]arrow.Array, len(s.n.rkeys))
	for i, k := range s.n.rkeys {
		cols[i] = all.Column(k)
	}
	s.next = make([]int32, n)
	s.tail = make([]int32, n)
	if vals, ok := intKeys(cols); ok {
		// One integer key: a map keyed by the value itself is several times
		// faster than encoding every key to bytes.
		s.intKey = true
		s.headU = make(map[uint64]int32, n)
		c := cols[0]
		for r := 0; r < n; r++ {
			s.next[r] = -1
			if c.IsNull(r) {
				continue
			}
			k := vals(r)
			if h, found := s.headU[k]; found {
				s.next[s.tail[h]] = int32(r)
				s.tail[h] = int32(r)
			} else {
				s.headU[k] = int32(r)
				s.tail[r] = int32(r)
			}
		}
		s.n.metrics.Add("build_rows", int64(n))
		s.left, err = s.n.left.Execute(ctx, s.tc)
		return err
	}
	s.head = make(map[string]int32, n)
	for r := 0; r < n; r++ {
		s.next[r] = -1
		var ok bool
		s.buf, ok = encodeKey(s.buf[:0], cols, r)
		if !ok {
			continue
		}
		if h, found := s.head[string(s.buf)]; found {
			s.next[s.tail[h]] = int32(r) // append keeps build order within a key
			s.tail[h] = int32(r)
		} else {
			s.head[string(s.buf)] = int32(r)
			s.tail[r] = int32(r)
		}
	}
	s.n.metrics.Add("build_rows", int64(n))
	s.left, err = s.n.left.Execute(ctx, s.tc)
	return err
}

func emptyCols(sc *arrow.Schema, tc *TaskContext) []arrow.Array {
	cols := make([]arrow.Array, sc.NumFields())
	for i, f := range sc.Fields() {
		cols[i] = array.MakeArrayOfNull(tc.mem(), f.Type, 0)
	}
	return cols
}

func (s *hashJoinStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.closed {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !s.built {
		s.built = true
		if err := s.doBuild(ctx); err != nil {
			return nil, err
		}
	}
	for {
		if b, ok := s.co.Pop(); ok {
			return s.n.metrics.emit(b, time.Now())
		}
		if s.eof {
			return nil, io.EOF
		}
		lb, err := s.left.Next(ctx)
		if errors.Is(err, io.EOF) {
			s.eof = true
			if err := s.co.Finish(); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		err = s.probe(ctx, lb)
		lb.Release()
		if err != nil {
			return nil, err
		}
	}
}

func (s *hashJoinStream) probe(ctx context.Context, lb arrow.RecordBatch) error {
	start := time.Now()
	defer s.n.metrics.since(start)
	mem := s.tc.mem()
	cols := make([]arrow.Array, len(s.n.lkeys))
	for i, k := range s.n.lkeys {
		cols[i] = lb.Column(k)
	}
	li := array.NewInt64Builder(mem)
	ri := array.NewInt64Builder(mem)
	defer li.Release()
	defer ri.Release()
	var vals func(int) uint64
	if s.intKey {
		vals, _ = intKeys(cols)
	}
	for r := 0; r < int(lb.NumRows()); r++ {
		matched := false
		h, found := int32(0), false
		if s.intKey {
			if !cols[0].IsNull(r) {
				h, found = s.headU[vals(r)]
			}
		} else {
			var ok bool
			s.buf, ok = encodeKey(s.buf[:0], cols, r)
			if ok {
				h, found = s.head[string(s.buf)]
			}
		}
		{
			if found {
				for m := h; m >= 0; m = s.next[m] {
					li.Append(int64(r))
					ri.Append(int64(m))
				}
				matched = true
			}
		}
		if !matched && s.n.typ == JoinLeft {
			li.Append(int64(r))
			ri.AppendNull() // Take with a NULL index yields a NULL right row
		}
	}
	if li.Len() == 0 {
		return nil
	}
	lidx, ridx := li.NewArray(), ri.NewArray()
	defer lidx.Release()
	defer ridx.Release()
	cctx := compute.WithAllocator(ctx, mem)
	out := make([]arrow.Array, 0, s.n.schema.NumFields())
	defer func() {
		for _, c := range out {
			c.Release()
		}
	}()
	for i := 0; i < int(lb.NumCols()); i++ {
		c, err := compute.TakeArray(cctx, lb.Column(i), lidx)
		if err != nil {
			return err
		}
		out = append(out, c)
	}
	for i := 0; i < int(s.build.NumCols()); i++ {
		c, err := compute.TakeArray(cctx, s.build.Column(i), ridx)
		if err != nil {
			return err
		}
		out = append(out, c)
	}
	b := array.NewRecordBatch(s.n.schema, out, int64(lidx.Len()))
	defer b.Release()
	s.n.metrics.Add("probe_rows", lb.NumRows())
	return s.co.Push(b)
}
