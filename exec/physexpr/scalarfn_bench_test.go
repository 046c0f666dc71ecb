package physexpr_test

import (
	"fmt"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// benchBatch is one 8192-row batch of (k bigint, s text), k = i - 4096,
// s = "Row-<i>-é".
func benchBatch(b *testing.B, mem memory.Allocator) arrow.RecordBatch {
	const n = 8192
	kb, sb := array.NewInt64Builder(mem), array.NewStringBuilder(mem)
	defer kb.Release()
	defer sb.Release()
	for i := 0; i < n; i++ {
		kb.Append(int64(i - n/2))
		sb.Append(fmt.Sprintf("Row-%d-é", i))
	}
	k, s := kb.NewArray(), sb.NewArray()
	defer k.Release()
	defer s.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: i64, Nullable: true}, {Name: "s", Type: str, Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{k, s}, n)
}

// BenchmarkScalarExprs evaluates each expression over one 8192-row batch
// (bound once); ns/op divided by 8192 is the cost per row.
func BenchmarkScalarExprs(b *testing.B) {
	k, s := physexpr.Col{Index: 0, Name: "k"}, physexpr.Col{Index: 1, Name: "s"}
	zero := physexpr.Binary{Op: physexpr.OpEq, L: k, R: physexpr.Lit{Value: int64(0)}}
	for _, c := range []struct {
		name string
		e    physexpr.Expr
	}{
		{"case-literals", physexpr.Case{Whens: []physexpr.When{{Cond: physexpr.Binary{Op: physexpr.OpLt, L: k, R: physexpr.Lit{Value: int64(0)}}, Then: physexpr.Lit{Value: "neg"}}}, Else: physexpr.Lit{Value: "pos"}}},
		{"case-guarded-division", physexpr.Case{Whens: []physexpr.When{{Cond: zero, Then: physexpr.Lit{Value: int64(0)}}}, Else: physexpr.Binary{Op: physexpr.OpDiv, L: physexpr.Lit{Value: int64(1000)}, R: k}}},
		{"coalesce", physexpr.Coalesce{Args: []physexpr.Expr{physexpr.NullIf{A: k, B: physexpr.Lit{Value: int64(0)}}, physexpr.Lit{Value: int64(-1)}}}},
		{"like-prefix", physexpr.Like{E: s, Pattern: physexpr.Lit{Value: "Row-1%"}}},
		{"ilike-infix", physexpr.Like{E: s, Pattern: physexpr.Lit{Value: "%-12%É"}, CaseInsensitive: true}},
		{"lower", physexpr.Func{Name: "lower", Args: []physexpr.Expr{s}}},
		{"substr", physexpr.Func{Name: "substr", Args: []physexpr.Expr{s, physexpr.Lit{Value: int64(2)}, physexpr.Lit{Value: int64(5)}}}},
		{"concat", physexpr.Func{Name: "textcat", Args: []physexpr.Expr{s, physexpr.Lit{Value: "!"}}}},
		{"abs", physexpr.Func{Name: "abs", Args: []physexpr.Expr{k}}},
		{"baseline-compare", physexpr.Binary{Op: physexpr.OpLt, L: k, R: physexpr.Lit{Value: int64(0)}}},
		{"baseline-cast-text", physexpr.Cast{E: k, To: str}},
	} {
		b.Run(c.name, func(b *testing.B) {
			mem := memory.NewGoAllocator()
			bt := benchBatch(b, mem)
			defer bt.Release()
			bd, err := physexpr.Bind(c.e, bt.Schema())
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				a, err := physexpr.EvalArray(b.Context(), mem, bd, bt)
				if err != nil {
					b.Fatal(err)
				}
				a.Release()
			}
		})
	}
}
