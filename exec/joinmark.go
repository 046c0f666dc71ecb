package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// The mark join (JoinMark) is the join an IN, EXISTS or op ANY subquery
// becomes where it is a value rather than a WHERE conjunct (in the select
// list, under OR or NOT, in CASE): the query's rows each come out once,
// with the mark, the subquery's three-valued answer for the row. Its
// definition is Substrait's LEFT MARK join: the OR of the join condition
// over the right rows, so that x IN (S), written as the condition x = y,
// is TRUE if x equals some y; NULL if it equals none and x is NULL (and
// S is not empty) or S holds a NULL; FALSE otherwise, as PostgreSQL's
// ExecScanSubPlan computes it row by row (its "rowresult" of the
// combining operator ORed over the subplan's rows).
//
// A left batch is decided whole, in two passes, each testing at most
// batchSize candidate pairs at a time (the memory bound of the other
// join types); the build side is the hash join's, under the same
// reservation:
//
//  1. the key candidates: the build rows the hash table finds for the
//     row (every build row in a nested loop join), tested with the
//     residual: a true one marks the row TRUE, a NULL one NULL unless a
//     true one follows;
//  2. the pairs whose key comparison is NULL, which the hash table never
//     finds, for the rows still FALSE: every build row for a left row
//     with a NULL key, else the build rows with a NULL key. Their
//     condition is never true; it is NULL unless some key pair of
//     non-NULL values differs or the residual is false, so they are
//     tested with the whole condition (full) until one is NULL. With one
//     key and no residual every such pair is NULL: no test is needed.
//
// The output is the left batch's own columns and the mark: the left
// rows are not copied.

// markField is the mark join's added column.
var markField = arrow.Field{Name: "mark", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}

// The marks of a batch's rows while it is decided.
const (
	markFalse int8 = iota
	markTrue
	markNull
)

// fullCondition is a hash mark join's whole condition over the pair
// schema (nl left columns, then the right's): the keys' equalities and
// the residual (nil: none).
func fullCondition(nl int, lkeys, rkeys []int, residual physexpr.Expr, pair *arrow.Schema) (physexpr.Bound, error) {
	var cond physexpr.Expr
	for i := range lkeys {
		eq := physexpr.Binary{Op: physexpr.OpEq,
			L: physexpr.Col{Index: lkeys[i], Name: pair.Field(lkeys[i]).Name},
			R: physexpr.Col{Index: nl + rkeys[i], Name: pair.Field(nl + rkeys[i]).Name}}
		if cond == nil {
			cond = eq
		} else {
			cond = physexpr.Binary{Op: physexpr.OpAnd, L: cond, R: eq}
		}
	}
	if residual != nil {
		cond = physexpr.Binary{Op: physexpr.OpAnd, L: cond, R: residual}
	}
	return bindResidual(cond, pair)
}

// probeMark decides the marks of one left batch and emits its rows.
func (s *joinStream) probeMark(ctx context.Context) error {
	if s.pb == nil {
		b, err := s.nextLeft(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			s.state = jsFinish
			return nil
		}
		s.setPB(b)
	}
	defer s.releasePB()
	n := int(s.pb.NumRows())
	s.marks = growInt8s(s.marks, n)
	marks := s.marks
	clear(marks)
	limit := s.tc.RowsPerBatch()
	s.li, s.ri = s.li[:0], s.ri[:0]
	// flush tests the gathered pairs with bound (nil: every pair is
	// true) and raises their rows' marks.
	flush := func(bound physexpr.Bound) error {
		if len(s.li) == 0 {
			return nil
		}
		s.j.metrics.Max("pairs_max", int64(len(s.li)))
		if bound == nil {
			for _, r := range s.li {
				marks[r] = markTrue
			}
		} else {
			pass, err := s.testWith(ctx, bound, true)
			if err != nil {
				return err
			}
			for k, r := range s.li {
				switch {
				case pass[k]:
					marks[r] = markTrue
				case s.null[k] && marks[r] == markFalse:
					marks[r] = markNull
				}
			}
		}
		s.li, s.ri = s.li[:0], s.ri[:0]
		return nil
	}
	// 1. The key candidates. Without a residual the first decides.
	for r := 0; r < n; r++ {
		for c := s.first(r); c >= 0 && marks[r] != markTrue; c = s.following(c) {
			s.li, s.ri = append(s.li, int32(r)), append(s.ri, c)
			if s.j.bound == nil {
				break
			}
			if len(s.li) >= limit {
				if err := flush(s.j.bound); err != nil {
					return err
				}
			}
		}
		if s.j.bound == nil && len(s.li) >= limit {
			if err := flush(nil); err != nil {
				return err
			}
		}
	}
	if s.j.bound == nil {
		if err := flush(nil); err != nil {
			return err
		}
	} else if err := flush(s.j.bound); err != nil {
		return err
	}
	// 2. The pairs whose key comparison is NULL.
	if s.idx != nil && s.nbuild > 0 {
		if err := s.markNullKeys(marks, limit, flush); err != nil {
			return err
		}
	}
	var nulls, trues int64
	for _, m := range marks[:n] {
		switch m {
		case markTrue:
			trues++
		case markNull:
			nulls++
		}
	}
	s.j.metrics.Add("marked_true", trues)
	s.j.metrics.Add("marked_null", nulls)
	return s.emitMarked(marks[:n])
}

// markNullKeys is probeMark's second pass.
func (s *joinStream) markNullKeys(marks []int8, limit int, flush func(physexpr.Bound) error) error {
	if s.nullRows == nil {
		s.nullRows = []int32{}
		for r := 0; r < s.nbuild; r++ {
			for _, k := range s.j.rkeys {
				if s.build.Column(k).IsNull(r) {
					s.nullRows = append(s.nullRows, int32(r))
					break
				}
			}
		}
	}
	simple := len(s.j.lkeys) == 1 && s.j.bound == nil
	for r := range marks {
		if marks[r] != markFalse {
			continue
		}
		probeNull := false
		for _, k := range s.pkeys {
			probeNull = probeNull || k.IsNull(r)
		}
		if !probeNull && len(s.nullRows) == 0 {
			continue
		}
		if simple {
			marks[r] = markNull // x = NULL, or NULL = y: NULL
			continue
		}
		// Every build row for a NULL probe key, else the NULL-keyed ones;
		// the row's pairs stop at its first NULL.
		var cands []int32
		if !probeNull {
			cands = s.nullRows
		}
		for i := 0; marks[r] == markFalse; i++ {
			c := int32(i)
			if cands != nil {
				if i >= len(cands) {
					break
				}
				c = cands[i]
			} else if i >= s.nbuild {
				break
			}
			s.li, s.ri = append(s.li, int32(r)), append(s.ri, c)
			if len(s.li) >= limit {
				if err := flush(s.j.full); err != nil {
					return err
				}
			}
		}
	}
	return flush(s.j.full)
}

// emitMarked pushes pb's rows with their marks.
func (s *joinStream) emitMarked(marks []int8) error {
	bld := array.NewBooleanBuilder(s.tc.Allocator())
	defer bld.Release()
	bld.Reserve(len(marks))
	for _, m := range marks {
		if m == markNull {
			bld.AppendNull()
		} else {
			bld.UnsafeAppend(m == markTrue)
		}
	}
	mark := bld.NewArray()
	defer mark.Release()
	cols := append(append(make([]arrow.Array, 0, s.pb.NumCols()+1), s.pb.Columns()...), mark)
	b := array.NewRecordBatch(s.j.schema, cols, int64(len(marks)))
	defer b.Release()
	if err := s.co.Push(b); err != nil {
		return fmt.Errorf("exec: mark join: %w", err)
	}
	return nil
}

func growInt8s(s []int8, n int) []int8 {
	if cap(s) < n {
		return make([]int8, n)
	}
	return s[:n]
}
