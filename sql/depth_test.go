package sql

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/internal/deepsql"
)

// TestDepthLimitCrashSizes: the statements that killed the process with
// SIGSEGV in libpg_query (issue 32: 25,000 to 70,000 terms of 1+1+...)
// are refused with ErrTooDeep, an InvalidArgument, before the C parser
// runs. Before the check this test died with the process.
func TestDepthLimitCrashSizes(t *testing.T) {
	for _, n := range []int{25000, 30000, 40000, 70000} {
		q := "SELECT 1" + strings.Repeat("+1", n-1)
		_, err := Parse(q, testCatalog)
		if !errors.Is(err, ErrTooDeep) || !errors.Is(err, errkind.InvalidArgument) || errors.Is(err, errkind.Internal) {
			t.Fatalf("%d terms: err = %v, want ErrTooDeep (InvalidArgument)", n, err)
		}
		if !strings.Contains(err.Error(), "stack depth limit exceeded") || !strings.Contains(err.Error(), "line 1, column ") {
			t.Fatalf("%d terms: message %q names neither the limit nor the place", n, err)
		}
	}
}

// TestDepthLimitEveryClass: every operator class nested far past the
// limit (and past the measured crash sizes) is refused with ErrTooDeep;
// the same shapes within the limit parse as before.
func TestDepthLimitEveryClass(t *testing.T) {
	for c := range deepsql.NumClasses {
		for shape := range 12 {
			if deepsql.Flat(c, shape) {
				continue
			}
			for _, n := range []int{MaxDepth + 1, 25000} {
				if n > MaxDepth+1 && shape >= 2 {
					continue // the statement around it does not change the count
				}
				q := deepsql.Statement(c, n, shape)
				if _, err := Parse(q, testCatalog); !errors.Is(err, ErrTooDeep) {
					t.Errorf("%v shape %d, %d levels: err = %v, want ErrTooDeep", c, shape, n, err)
				}
			}
			// 150 levels: six tree levels each for two nested subqueries,
			// under the limit whatever the class.
			q := deepsql.Statement(c, 150, shape)
			if _, err := Parse(q, testCatalog); errors.Is(err, ErrTooDeep) || errors.Is(err, ErrInternal) {
				t.Errorf("%v shape %d, 150 levels: %v", c, shape, err)
			}
		}
	}
}

// TestDepthLimitBoundary: the count is exact for an operator chain:
// MaxDepth operators parse, one more does not; a ';' starts the count
// again, so a script of many such statements passes.
func TestDepthLimitBoundary(t *testing.T) {
	at := "SELECT 1" + strings.Repeat(" + 1", MaxDepth)
	if _, err := Parse(at, testCatalog); err != nil {
		t.Fatalf("%d operators: %v", MaxDepth, err)
	}
	if _, err := Parse(at+" + 1", testCatalog); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("%d operators: err = %v, want ErrTooDeep", MaxDepth+1, err)
	}
	if _, err := Parse(strings.Repeat(at+";\n", 5), testCatalog); err != nil {
		t.Fatalf("five statements at the limit: %v", err)
	}
	// The position is the script's: statement 2, where the count passes the limit.
	_, err := ParseAt("SELECT 1;\n"+at+" + 1", testCatalog, Pos{Line: 3, Column: 1})
	if want := fmt.Sprintf("line 4, column %d", len(at)+2); !errors.Is(err, ErrTooDeep) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want ErrTooDeep at %s", err, want)
	}
}

// TestDepthLimitFlatLists: lists are not depth. IN lists, VALUES rows, a
// WHERE of AND-ed conditions, a SELECT list, CASE arms and arguments of
// any length parse (and lower) as before.
func TestDepthLimitFlatLists(t *testing.T) {
	big := 100000
	if !testing.Short() {
		big = 1000000
	}
	var where strings.Builder
	where.WriteString("SELECT id FROM t WHERE id > 0")
	for i := range 5000 {
		fmt.Fprintf(&where, " AND id <> %d AND (name = 'x%d' OR score < %d.5)", i, i, i)
	}
	var values strings.Builder
	values.WriteString("INSERT INTO t (id, name) VALUES (0, 'a')")
	for i := range 100000 {
		fmt.Fprintf(&values, ", (%d, 'a')", i)
	}
	var list strings.Builder
	list.WriteString("SELECT 0")
	for i := range 5000 {
		fmt.Fprintf(&list, ", id + %d", i)
	}
	list.WriteString(" FROM t")
	for _, tc := range []struct{ name, sql string }{
		{"5000 AND-ed conditions", where.String()},
		{"VALUES of 100000 rows", values.String()},
		{"SELECT list of 5000", list.String()},
		{fmt.Sprintf("IN list of %d", big), deepsql.Statement(deepsql.List, big, 0)},
		{"CASE of 5000 arms", deepsql.Statement(deepsql.Case, 5000, 3)},
		{"greatest of 5000 arguments", deepsql.Statement(deepsql.Func, 5000, 3)},
		{"a 300 term sum", deepsql.Statement(deepsql.Arith, 300, 0)},
		{"100 nested subqueries", deepsql.Statement(deepsql.Subquery, 100, 0)},
	} {
		if _, err := Parse(tc.sql, testCatalog); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
