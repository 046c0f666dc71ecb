package physexpr_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestMemoBindsOnce: a tree built bottom-up of Memos, each level asked its
// type as it is built (what the planner does), derives each node's type
// once, not once per level above it (issue 32: quadratic in the depth).
// The Memo is transparent: the same type and text as the bare tree, and an
// AND chain flattens through it into one n-ary node.
func TestMemoBindsOnce(t *testing.T) {
	const depth = 300
	var types, evals atomic.Int64
	leaf := countingExpr{&types, &evals}
	var memo, bare physexpr.Expr = leaf, leaf
	for i := range depth {
		op := []physexpr.Op{physexpr.OpAnd, physexpr.OpOr}[i%2]
		memo = physexpr.NewMemo(physexpr.Binary{Op: op, L: memo, R: physexpr.Lit{Value: true}})
		bare = physexpr.Binary{Op: op, L: bare, R: physexpr.Lit{Value: true}}
		if _, err := memo.DataType(arrowtest.KVSchema); err != nil {
			t.Fatal(err)
		}
	}
	if n := types.Load(); n != 1 {
		t.Fatalf("%d levels, each asked its type: the leaf's type derived %d times, want 1", depth, n)
	}
	if memo.String() != bare.String() {
		t.Fatalf("String differs: %.80s vs %.80s", memo.String(), bare.String())
	}
	mb, err := physexpr.Bind(memo, arrowtest.KVSchema)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := physexpr.Bind(bare, arrowtest.KVSchema)
	if err != nil {
		t.Fatal(err)
	}
	if mb.String() != bb.String() || !arrow.TypeEqual(mb.Type(), bb.Type()) {
		t.Fatalf("bound %s (%s), want %s (%s)", mb, mb.Type(), bb, bb.Type())
	}

	// a AND (b AND c) through Memos binds to one AND of three operands.
	chain := physexpr.Binary{Op: physexpr.OpAnd, L: physexpr.NewMemo(physexpr.Binary{Op: physexpr.OpAnd, L: leaf, R: leaf}), R: leaf}
	b, err := physexpr.Bind(chain, arrowtest.KVSchema)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "AND(3 operands)" {
		t.Fatalf("AND through a Memo bound as %s, want AND(3 operands)", got)
	}
	for _, e := range []physexpr.Expr{physexpr.Col{Index: 0, Name: "k"}, physexpr.Lit{Value: int64(1)}, memo} {
		if physexpr.NewMemo(e) != e {
			t.Fatalf("NewMemo(%T) wrapped it", e)
		}
	}
}

// TestBinaryStringLinear: rendering a left-deep chain of n OR-ed terms
// allocates about twice as many bytes for 2n, not four times (issue 32:
// each level formatted its operands' strings into a new one, so a WHERE
// of 100,000 terms copied its text 100,000 times when the engine rendered
// the plan it ran). The text is the one fmt gives level by level.
func TestBinaryStringLinear(t *testing.T) {
	k := physexpr.Col{Index: 0, Name: "k"}
	chain := func(n int) physexpr.Expr {
		var e physexpr.Expr = k
		for i := range n {
			e = physexpr.Binary{Op: physexpr.OpOr, L: e, R: physexpr.NewMemo(physexpr.Binary{Op: physexpr.OpEq, L: k, R: physexpr.Lit{Value: int64(i)}})}
		}
		return e
	}
	small := physexpr.Binary{Op: physexpr.OpEq, L: physexpr.NewMemo(physexpr.Binary{Op: physexpr.OpAdd, L: k, R: physexpr.Lit{Value: int64(1)}}), R: physexpr.Lit{Value: int64(2)}}
	if got, want := small.String(), fmt.Sprintf("%s + %s = %s", k, physexpr.Lit{Value: int64(1)}, physexpr.Lit{Value: int64(2)}); got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	bytes := func(e physexpr.Expr) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_ = e.String()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	const n = 2000
	a, b := bytes(chain(n)), bytes(chain(2*n))
	t.Logf("%d terms: %d bytes, %d: %d (x%.2f)", n, a, 2*n, b, float64(b)/float64(a))
	if float64(b) > 2.6*float64(a) {
		t.Fatalf("rendering %d terms allocates %d bytes, %d terms %d: x%.2f, want about 2", n, a, 2*n, b, float64(b)/float64(a))
	}
}
