package exec_test

import (
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/exec"
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
	var memo, bare exec.Expr = leaf, leaf
	for i := range depth {
		op := []exec.Op{exec.OpAnd, exec.OpOr}[i%2]
		memo = exec.NewMemo(exec.Binary{Op: op, L: memo, R: exec.Lit{Value: true}})
		bare = exec.Binary{Op: op, L: bare, R: exec.Lit{Value: true}}
		if _, err := memo.DataType(kvSchema); err != nil {
			t.Fatal(err)
		}
	}
	if n := types.Load(); n != 1 {
		t.Fatalf("%d levels, each asked its type: the leaf's type derived %d times, want 1", depth, n)
	}
	if memo.String() != bare.String() {
		t.Fatalf("String differs: %.80s vs %.80s", memo.String(), bare.String())
	}
	mb, err := exec.Bind(memo, kvSchema)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := exec.Bind(bare, kvSchema)
	if err != nil {
		t.Fatal(err)
	}
	if mb.String() != bb.String() || !arrow.TypeEqual(mb.Type(), bb.Type()) {
		t.Fatalf("bound %s (%s), want %s (%s)", mb, mb.Type(), bb, bb.Type())
	}

	// a AND (b AND c) through Memos binds to one AND of three operands.
	chain := exec.Binary{Op: exec.OpAnd, L: exec.NewMemo(exec.Binary{Op: exec.OpAnd, L: leaf, R: leaf}), R: leaf}
	b, err := exec.Bind(chain, kvSchema)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "AND(3 operands)" {
		t.Fatalf("AND through a Memo bound as %s, want AND(3 operands)", got)
	}
	for _, e := range []exec.Expr{exec.Col{Index: 0, Name: "k"}, exec.Lit{Value: int64(1)}, memo} {
		if exec.NewMemo(e) != e {
			t.Fatalf("NewMemo(%T) wrapped it", e)
		}
	}
}
