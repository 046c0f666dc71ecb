package exec

import (
	"context"
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// applyOn evaluates a LEFT expand's ON condition on the series rows held
// and keeps, in order, those for which it is true and each end mark (a
// NULL row) of an input row none of whose series rows passed: PostgreSQL's
// nested loop NULL-extends an outer row that no inner row joined. The
// condition is evaluated only on series rows, never on an end mark, as
// PostgreSQL never evaluates it for a row it does not produce.
func (s *expandStream) applyOn(ctx context.Context) error {
	cand := make([]int32, 0, len(s.idx)) // positions of series rows
	for i, null := range s.null {
		if !null {
			cand = append(cand, int32(i))
		}
	}
	pass := make([]bool, len(s.idx))
	if len(cand) > 0 {
		if err := s.evalOn(ctx, cand, pass); err != nil {
			return err
		}
	}
	keep := make([]int32, 0, len(s.idx))
	for i, null := range s.null {
		switch {
		case !null && pass[i]:
			s.passed = true
			keep = append(keep, int32(i))
		case null: // the end mark of input row idx[i]: its series is done
			if !s.passed {
				keep = append(keep, int32(i))
			}
			s.passed = false
		}
	}
	for j, i := range keep {
		s.idx[j], s.ords[j], s.null[j] = s.idx[i], s.ords[i], s.null[i]
	}
	s.idx, s.ords, s.null = s.idx[:len(keep)], s.ords[:len(keep)], s.null[:len(keep)]
	s.vals.keep(keep)
	return nil
}

// evalOn evaluates the condition on the rows held at cand and sets
// pass[cand[j]] where it is true (not false, not NULL).
func (s *expandStream) evalOn(ctx context.Context, cand []int32, pass []bool) error {
	idx := make([]int32, len(cand))
	ords := make([]int64, len(cand))
	null := make([]bool, len(cand))
	for j, i := range cand {
		idx[j], ords[j] = s.idx[i], s.ords[i]
	}
	sub := s.vals.subset(cand)
	b, err := s.build(ctx, idx, &sub, ords, null)
	if err != nil {
		return err
	}
	defer b.Release()
	d, err := s.n.onBound.Eval(ctx, s.tc.Allocator(), b)
	if err != nil {
		return err
	}
	defer d.Release()
	switch d := d.(type) {
	case *compute.ScalarDatum:
		if v, _ := d.Value.(*scalar.Boolean); v != nil && v.IsValid() && v.Value {
			for _, i := range cand {
				pass[i] = true
			}
		}
		return nil
	case *compute.ArrayDatum:
		a := d.MakeArray()
		defer a.Release()
		mask, ok := a.(*array.Boolean)
		if !ok || mask.Len() != len(cand) {
			return fmt.Errorf("%w: expand condition gave %d rows of %s for %d", physexpr.ErrSchema, a.Len(), a.DataType(), len(cand))
		}
		for j, i := range cand {
			pass[i] = mask.IsValid(j) && mask.Value(j)
		}
		return nil
	}
	return fmt.Errorf("%w: expand condition gave a %s", physexpr.ErrSchema, d.Kind())
}

// subset is a copy of the values at sel.
func (b *seriesBuf) subset(sel []int32) seriesBuf {
	var out seriesBuf
	if b.decs != nil {
		out.decs = make([]decimal128.Num, len(sel))
		for j, i := range sel {
			out.decs[j] = b.decs[i]
		}
		return out
	}
	out.ints = make([]int64, len(sel))
	for j, i := range sel {
		out.ints[j] = b.ints[i]
	}
	return out
}
