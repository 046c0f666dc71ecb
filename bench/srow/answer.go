package srow

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/bench/peer"
)

func numRows(batches []arrow.RecordBatch) int {
	n := 0
	for _, b := range batches {
		n += int(b.NumRows())
	}
	return n
}

// takeRows reads (ord, _rowaddr [, payload]) batches.
func takeRows(batches []arrow.RecordBatch, payload bool) (*peer.TakeRows, error) {
	n := numRows(batches)
	want := 2
	a := &peer.TakeRows{Ord: make([]int64, 0, n), Addr: make([]uint64, 0, n), AddrValid: make([]bool, 0, n)}
	if payload {
		want = 3
		a.Payload, a.PayloadValid = make([]float64, 0, n), make([]bool, 0, n)
	}
	for _, b := range batches {
		if int(b.NumCols()) != want {
			return nil, fmt.Errorf("%w: take returned %s", ErrUnexpectedSchema, b.Schema())
		}
		ord, ok1 := b.Column(0).(*array.Int64)
		addr, ok2 := b.Column(1).(*array.Uint64)
		if !ok1 || !ok2 || ord.NullN() > 0 {
			return nil, fmt.Errorf("%w: take returned %s", ErrUnexpectedSchema, b.Schema())
		}
		a.Ord = append(a.Ord, ord.Int64Values()...)
		a.Addr = append(a.Addr, addr.Uint64Values()...)
		a.AddrValid = appendValid(a.AddrValid, addr)
		if payload {
			p, ok := b.Column(2).(*array.Float64)
			if !ok {
				return nil, fmt.Errorf("%w: take returned %s", ErrUnexpectedSchema, b.Schema())
			}
			a.Payload = append(a.Payload, p.Float64Values()...)
			a.PayloadValid = appendValid(a.PayloadValid, p)
		}
	}
	return a, nil
}

// contentRows reads (ord, k, payload) batches.
func contentRows(batches []arrow.RecordBatch) (*peer.ContentRows, error) {
	n := numRows(batches)
	a := &peer.ContentRows{Ord: make([]int64, 0, n), K: make([]int64, 0, n), Payload: make([]float64, 0, n), Valid: make([]bool, 0, n)}
	for _, b := range batches {
		if b.NumCols() != 3 {
			return nil, fmt.Errorf("%w: content check returned %s", ErrUnexpectedSchema, b.Schema())
		}
		ord, ok1 := b.Column(0).(*array.Int64)
		k, ok2 := b.Column(1).(*array.Int64)
		p, ok3 := b.Column(2).(*array.Float64)
		if !ok1 || !ok2 || !ok3 || ord.NullN() > 0 {
			return nil, fmt.Errorf("%w: content check returned %s", ErrUnexpectedSchema, b.Schema())
		}
		for i := range k.Len() {
			if k.IsValid(i) != p.IsValid(i) {
				return nil, fmt.Errorf("%w: content check row %d: k and payload disagree on NULL", ErrUnexpectedSchema, len(a.Ord)+i)
			}
		}
		a.Ord = append(a.Ord, ord.Int64Values()...)
		a.K = append(a.K, k.Int64Values()...)
		a.Payload = append(a.Payload, p.Float64Values()...)
		a.Valid = appendValid(a.Valid, k)
	}
	return a, nil
}

// kRows reads (k, payload) batches.
func kRows(batches []arrow.RecordBatch) (*peer.KRows, error) {
	n := numRows(batches)
	a := &peer.KRows{K: make([]int64, 0, n), Payload: make([]float64, 0, n)}
	for _, b := range batches {
		if b.NumCols() != 2 {
			return nil, fmt.Errorf("%w: filter returned %s", ErrUnexpectedSchema, b.Schema())
		}
		k, ok1 := b.Column(0).(*array.Int64)
		p, ok2 := b.Column(1).(*array.Float64)
		if !ok1 || !ok2 || k.NullN() > 0 || p.NullN() > 0 {
			return nil, fmt.Errorf("%w: filter returned %s", ErrUnexpectedSchema, b.Schema())
		}
		a.K = append(a.K, k.Int64Values()...)
		a.Payload = append(a.Payload, p.Float64Values()...)
	}
	return a, nil
}

// appendValid appends arr's validity, one flag per row.
func appendValid(dst []bool, arr arrow.Array) []bool {
	start := len(dst)
	dst = dst[:start+arr.Len()]
	out := dst[start:]
	if arr.NullN() == 0 {
		for i := range out {
			out[i] = true
		}
		return dst
	}
	for i := range out {
		out[i] = arr.IsValid(i)
	}
	return dst
}
