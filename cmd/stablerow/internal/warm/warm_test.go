package warm

import (
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// TestRunAlongsideAStatement: the warm-up and a statement's own parse build
// the same per-message state at once, as they do in a real run (meant for
// -race), and the statement's tree is the one a parse after both gives.
func TestRunAlongsideAStatement(t *testing.T) {
	var wg sync.WaitGroup
	var werr error
	wg.Go(func() { werr = run() })
	tree, err := pg_query.Parse(seedSQL)
	wg.Wait()
	if err != nil || werr != nil {
		t.Fatalf("parse: %v, warm-up: %v", err, werr)
	}
	again, err := pg_query.Parse(seedSQL)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil || !proto.Equal(tree, again) {
		t.Fatalf("the seed take parsed alongside the warm-up to\n%v\nand alone to\n%v", tree, again)
	}
}

// TestRun: the warm-up's own inputs are valid, so it readies the state it
// is for instead of failing early and silently (its error goes nowhere in
// a real run).
func TestRun(t *testing.T) {
	if err := run(); err != nil {
		t.Fatal(err)
	}
}
