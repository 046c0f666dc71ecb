package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/proto"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/internal/deepsql"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// deepSeeds are the committed corpus of FuzzDeepExpression: every class
// within the depth limit and just past it, three at the sizes that killed
// the process (issue 32: from 23,800 terms, 47,500 UNIONs), and two that
// took seconds to minutes to plan (issue 32: 1000 nested coalesce calls,
// a CASE of 25,000 arms). 1000 UNIONs, which planned for seconds too, are
// not a seed: the fuzz body's indented JSON of that plan is 100 MB
// (TestDeepExpressionsRun runs them).
func deepSeeds() [][3]int {
	var out [][3]int
	for c := range int(deepsql.NumClasses) {
		for _, n := range []int{40, sql.MaxDepth + 1} {
			out = append(out, [3]int{c, n, c % 4})
		}
	}
	return append(out, [3]int{int(deepsql.Arith), 25000, 0}, [3]int{int(deepsql.Concat), 40000, 0}, [3]int{int(deepsql.Union), 50000, 0},
		[3]int{int(deepsql.Func), sql.MaxDepth, 1}, [3]int{int(deepsql.Case), maxRunTerms, 3})
}

// TestWriteDeepSeeds writes testdata/fuzz/FuzzDeepExpression
// (STABLEROW_WRITE_SEEDS=1).
func TestWriteDeepSeeds(t *testing.T) {
	if os.Getenv("STABLEROW_WRITE_SEEDS") == "" {
		t.Skip("set STABLEROW_WRITE_SEEDS=1 to regenerate testdata/fuzz/FuzzDeepExpression")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzDeepExpression")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, s := range deepSeeds() {
		data := fmt.Appendf(nil, "go test fuzz v1\nbyte(%q)\nuint16(%d)\nbyte(%q)\n", byte(s[0]), s[1], byte(s[2]))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// maxRunDepth is the deepest nesting FuzzDeepExpression runs through
// planning and execution, and maxRunTerms the longest flat list; longer
// ones it parses and lowers. Planning is linear in the statement's size
// (issue 32: it was quadratic or worse, a flat CASE of 25,000 arms
// planned for minutes and this bound was 300), so every nesting the
// depth limit admits runs.
const (
	maxRunDepth = sql.MaxDepth
	maxRunTerms = 25000
)

// checkDeepError fails on an error that is not typed, on a nesting past
// sql.MaxDepth that is not ErrTooDeep, and on a flat list that is.
func checkDeepError(t *testing.T, name string, c deepsql.Class, shape, n int, err error) {
	t.Helper()
	checkFuzzError(t, name, err)
	switch {
	case deepsql.Flat(c, shape) && errors.Is(err, sql.ErrTooDeep):
		t.Fatalf("%s: a flat list refused as too deep: %v", name, err)
	case !deepsql.Flat(c, shape) && n > sql.MaxDepth && !errors.Is(err, sql.ErrTooDeep):
		t.Fatalf("%s: err = %v, want ErrTooDeep", name, err)
	}
}

// FuzzDeepExpression generates a statement of one operator class
// (internal/deepsql: arithmetic, comparison chains, ||, CASE, function
// calls, parentheses, unary minus, AND/OR, NOT, casts, subscripts,
// subqueries, set operations, flat lists), nested or chained depth times
// in the given shape. Up to maxRunDepth (a flat list: maxRunTerms) it
// runs the statement through the whole engine: parse, lower, plan (the
// Substrait loader), execute; then, when it runs, its Substrait plan as
// JSON and as binary protobuf through ExecSubstrait. Deeper, it parses and
// lowers it.
// Whatever the input, the process survives: a result or a typed error,
// never a panic, an internal error or a leak; a nesting past
// sql.MaxDepth is ErrTooDeep, a flat list of any length is not.
func FuzzDeepExpression(f *testing.F) {
	// The seeds are testdata/fuzz/FuzzDeepExpression (TestWriteDeepSeeds).
	f.Fuzz(func(t *testing.T, class byte, depth uint16, shape byte) {
		c, n := deepsql.Class(class)%deepsql.NumClasses, int(depth)
		q := deepsql.Statement(c, n, int(shape))
		name := fmt.Sprintf("%v shape %d, %d levels", c, shape, n)
		if n > maxRunDepth && !(deepsql.Flat(c, int(shape)) && n <= maxRunTerms) {
			// Parse and lower only: the parser is what can crash.
			_, err := sql.Parse(q, nil)
			checkDeepError(t, name, c, int(shape), n, err)
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 16})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		res, err := db.Exec(ctx, q, nil)
		res.Release()
		checkDeepError(t, name, c, int(shape), n, err)
		if err == nil {
			js, _, err := db.SubstraitOf(ctx, q)
			if err != nil {
				t.Fatalf("%s: ran but has no Substrait plan: %v", name, err)
			}
			pb, err := plan.DecodePlan(js)
			if err != nil {
				t.Fatalf("%s: its own JSON plan does not decode: %v", name, err)
			}
			bin, err := proto.Marshal(pb)
			if err != nil {
				t.Fatal(err)
			}
			for _, data := range [][]byte{js, bin} {
				res, err := db.ExecSubstrait(ctx, data, nil)
				checkFuzzError(t, name+" (Substrait)", err)
				res.Release()
			}
		}
		if n := mem.CurrentAlloc(); n != 0 && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Fatalf("%s: %d bytes leaked", name, n)
		}
	})
}

// longListTerms is the length of the flat lists TestDeepExpressionsRun
// runs: a megabyte of SQL for the longest.
const longListTerms = 100000

// TestDeepExpressionsRun: every nesting class and shape at the deepest
// statement sql.MaxDepth admits, and every flat list at longListTerms
// terms, runs through the engine (plan, execute) to a result or a typed
// error: nothing past the parser recurses out of its stack either, and
// nothing takes minutes (issue 32: a CASE of 25,000 arms planned for more
// than 8). Long (a few seconds a statement on 2 loaded cores), so not
// under -short; make fuzz-deep runs it.
func TestDeepExpressionsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("long: make fuzz-deep runs it")
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 16})
	for c := range deepsql.NumClasses {
		for shape := range 4 {
			if deepsql.Flat(c, shape) {
				name := fmt.Sprintf("%v shape %d, %d terms", c, shape, longListTerms)
				start := time.Now()
				res, err := db.Exec(context.Background(), deepsql.Statement(c, longListTerms, shape), nil)
				res.Release()
				checkDeepError(t, name, c, shape, longListTerms, err)
				t.Logf("%s: %v (%v)", name, time.Since(start), err)
				continue
			}
			// The deepest n the count admits.
			lo, hi := 0, sql.MaxDepth+1
			for hi-lo > 1 {
				m := (lo + hi) / 2
				if _, err := sql.Parse(deepsql.Statement(c, m, shape), nil); errors.Is(err, sql.ErrTooDeep) {
					hi = m
				} else {
					lo = m
				}
			}
			if lo < sql.MaxDepth/6 {
				t.Fatalf("%v shape %d: only %d levels admitted", c, shape, lo)
			}
			name := fmt.Sprintf("%v shape %d, %d levels", c, shape, lo)
			start := time.Now()
			res, err := db.Exec(context.Background(), deepsql.Statement(c, lo, shape), nil)
			res.Release()
			checkDeepError(t, name, c, shape, lo, err)
			t.Logf("%s: %v (%v)", name, time.Since(start), err)
		}
	}
}
