package exec_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
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
	k, s := exec.Col{Index: 0, Name: "k"}, exec.Col{Index: 1, Name: "s"}
	zero := exec.Binary{Op: exec.OpEq, L: k, R: exec.Lit{Value: int64(0)}}
	for _, c := range []struct {
		name string
		e    exec.Expr
	}{
		{"case-literals", exec.Case{Whens: []exec.When{{Cond: exec.Binary{Op: exec.OpLt, L: k, R: exec.Lit{Value: int64(0)}}, Then: exec.Lit{Value: "neg"}}}, Else: exec.Lit{Value: "pos"}}},
		{"case-guarded-division", exec.Case{Whens: []exec.When{{Cond: zero, Then: exec.Lit{Value: int64(0)}}}, Else: exec.Binary{Op: exec.OpDiv, L: exec.Lit{Value: int64(1000)}, R: k}}},
		{"coalesce", exec.Coalesce{Args: []exec.Expr{exec.NullIf{A: k, B: exec.Lit{Value: int64(0)}}, exec.Lit{Value: int64(-1)}}}},
		{"like-prefix", exec.Like{E: s, Pattern: exec.Lit{Value: "Row-1%"}}},
		{"ilike-infix", exec.Like{E: s, Pattern: exec.Lit{Value: "%-12%É"}, CaseInsensitive: true}},
		{"lower", exec.Func{Name: "lower", Args: []exec.Expr{s}}},
		{"substr", exec.Func{Name: "substr", Args: []exec.Expr{s, exec.Lit{Value: int64(2)}, exec.Lit{Value: int64(5)}}}},
		{"concat", exec.Func{Name: "textcat", Args: []exec.Expr{s, exec.Lit{Value: "!"}}}},
		{"abs", exec.Func{Name: "abs", Args: []exec.Expr{k}}},
		{"baseline-compare", exec.Binary{Op: exec.OpLt, L: k, R: exec.Lit{Value: int64(0)}}},
		{"baseline-cast-text", exec.Cast{E: k, To: str}},
	} {
		b.Run(c.name, func(b *testing.B) {
			mem := memory.NewGoAllocator()
			bt := benchBatch(b, mem)
			defer bt.Release()
			bd, err := exec.Bind(c.e, bt.Schema())
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				a, err := exec.EvalArray(b.Context(), mem, bd, bt)
				if err != nil {
					b.Fatal(err)
				}
				a.Release()
			}
		})
	}
}
