package duck

import (
	"fmt"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// logicalType maps the Go column slices this package moves to DuckDB types.
func logicalType(col any) (mapping.Type, error) {
	switch col.(type) {
	case []uint64:
		return mapping.TypeUBigInt, nil
	case []int64:
		return mapping.TypeBigInt, nil
	case []float64:
		return mapping.TypeDouble, nil
	}
	return 0, fmt.Errorf("%w: Go column %T", ErrUnexpectedType, col)
}

// copyIn copies col[off:off+n] into a vector's data buffer (8-byte values).
func copyIn(dst unsafe.Pointer, col any, off, n int) {
	switch c := col.(type) {
	case []uint64:
		copy(unsafe.Slice((*uint64)(dst), n), c[off:off+n])
	case []int64:
		copy(unsafe.Slice((*int64)(dst), n), c[off:off+n])
	case []float64:
		copy(unsafe.Slice((*float64)(dst), n), c[off:off+n])
	}
}

// appendColumns appends rows to table from equal-length Go slices ([]uint64,
// []int64 or []float64, in the table's column order), one data chunk at a
// time: a memcpy per column per 2048 rows instead of a cgo call per value.
func (d *DB) appendColumns(table string, cols ...any) error {
	if d.conn.Ptr == nil {
		return ErrClosed
	}
	n := -1
	types := make([]mapping.LogicalType, len(cols))
	defer func() {
		for i := range types {
			mapping.DestroyLogicalType(&types[i])
		}
	}()
	for i, c := range cols {
		t, err := logicalType(c)
		if err != nil {
			return err
		}
		types[i] = mapping.CreateLogicalType(t)
		l := colLen(c)
		if n >= 0 && l != n {
			return fmt.Errorf("duck: append to %s: columns of %d and %d rows: %w", table, n, l, ErrUnexpectedType)
		}
		n = l
	}
	var app mapping.Appender
	if mapping.AppenderCreate(d.conn, "", table, &app) == mapping.StateError {
		msg := mapping.AppenderError(app)
		mapping.AppenderDestroy(&app)
		return fmt.Errorf("%w: appender on %s: %s", ErrDuckDB, table, msg)
	}
	chunk := mapping.CreateDataChunk(types)
	defer mapping.DestroyDataChunk(&chunk)
	step := int(mapping.VectorSize())
	for off := 0; off < n; off += step {
		m := min(step, n-off)
		for i, c := range cols {
			copyIn(mapping.VectorGetData(mapping.DataChunkGetVector(chunk, mapping.IdxT(i))), c, off, m)
		}
		mapping.DataChunkSetSize(chunk, mapping.IdxT(m))
		if mapping.AppendDataChunk(app, chunk) == mapping.StateError {
			msg := mapping.AppenderError(app)
			mapping.AppenderDestroy(&app)
			return fmt.Errorf("%w: append to %s: %s", ErrDuckDB, table, msg)
		}
		mapping.DataChunkReset(chunk)
	}
	if mapping.AppenderClose(app) == mapping.StateError {
		msg := mapping.AppenderError(app)
		mapping.AppenderDestroy(&app)
		return fmt.Errorf("%w: close appender on %s: %s", ErrDuckDB, table, msg)
	}
	mapping.AppenderDestroy(&app)
	return nil
}

func colLen(col any) int {
	switch c := col.(type) {
	case []uint64:
		return len(c)
	case []int64:
		return len(c)
	case []float64:
		return len(c)
	}
	return 0
}

// column is one result column read back into Go: the raw 8-byte values of
// a BIGINT, UBIGINT or DOUBLE column (bits), or the strings of a VARCHAR one,
// and validity.
type column struct {
	typ   mapping.Type
	bits  []uint64
	strs  []string
	valid []bool
}

func (c *column) u64() []uint64 { return c.bits }

func (c *column) i64() []int64 {
	return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(c.bits))), len(c.bits))
}

func (c *column) f64() []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(c.bits))), len(c.bits))
}

// readColumns drains a materialized result into Go slices, one chunk at a
// time, and checks each column's type against want (nil: any supported).
func readColumns(res *mapping.Result, want []mapping.Type) ([]column, error) {
	nc := int(mapping.ColumnCount(res))
	if want != nil && nc != len(want) {
		return nil, fmt.Errorf("%w: %d result columns, want %d", ErrUnexpectedType, nc, len(want))
	}
	cols := make([]column, nc)
	for i := range cols {
		// Non-nil even when empty: a nil payload means "not selected".
		cols[i].bits, cols[i].valid = []uint64{}, []bool{}
		cols[i].typ = mapping.ColumnType(res, mapping.IdxT(i))
		switch t := cols[i].typ; {
		case want != nil && t != want[i]:
			return nil, fmt.Errorf("%w: column %d (%s) has type %d, want %d", ErrUnexpectedType, i,
				mapping.ColumnName(res, mapping.IdxT(i)), t, want[i])
		case t != mapping.TypeBigInt && t != mapping.TypeUBigInt && t != mapping.TypeDouble && t != mapping.TypeVarchar:
			return nil, fmt.Errorf("%w: column %d has type %d", ErrUnexpectedType, i, t)
		}
	}
	for {
		chunk := mapping.FetchChunk(*res)
		if chunk.Ptr == nil {
			return cols, nil
		}
		n := int(mapping.DataChunkGetSize(chunk))
		for i := range cols {
			vec := mapping.DataChunkGetVector(chunk, mapping.IdxT(i))
			cols[i].read(vec, n)
		}
		mapping.DestroyDataChunk(&chunk)
	}
}

// read appends n rows of vec.
func (c *column) read(vec mapping.Vector, n int) {
	data := mapping.VectorGetData(vec)
	if c.typ == mapping.TypeVarchar {
		s := unsafe.Slice((*mapping.StringT)(data), n)
		for i := range s {
			c.strs = append(c.strs, mapping.StringTData(&s[i]))
		}
	} else {
		c.bits = append(c.bits, unsafe.Slice((*uint64)(data), n)...)
	}
	// A nil validity mask means every row is valid; otherwise bit i%64 of
	// word i/64 is set for a valid row.
	mask := mapping.VectorGetValidity(vec)
	start := len(c.valid)
	c.valid = append(c.valid, make([]bool, n)...)
	out := c.valid[start:]
	if mask == nil {
		for i := range out {
			out[i] = true
		}
		return
	}
	words := unsafe.Slice((*uint64)(mask), (n+63)/64)
	for i := range out {
		out[i] = words[i/64]&(1<<(i%64)) != 0
	}
}
