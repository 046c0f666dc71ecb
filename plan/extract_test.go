package plan_test

import (
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/types"
)

// TestSubstraitExtract: extract as another producer writes it (the
// standard YAML's i64 signatures, substrait-go's builder), as TPC-H's
// extract(year FROM o_orderdate) arrives. 2001-02-16 is a Friday, day 47
// of its year; the indexing option counts from ONE or ZERO.
func TestSubstraitExtract(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	s := newSB(t)
	r := s.scan(c, "t")
	urn := extensions.SubstraitDefaultURNPrefix + "functions_datetime"
	d := expr.NewPrimitiveLiteral(types.Date(11369), false) // 2001-02-16
	year := s.fn(urn, "extract", types.Enum("YEAR"), d)
	month0 := s.fn(urn, "extract", types.Enum("MONTH"), types.Enum("ZERO"), d)
	dow1 := s.fn(urn, "extract", types.Enum("SUNDAY_DAY_OF_WEEK"), types.Enum("ONE"), d)
	doy := s.fn(urn, "extract", types.Enum("DAY_OF_YEAR"), types.Enum("ONE"), d)
	epoch := s.fn(urn, "extract", types.Enum("UNIX_TIME"), d)
	pr := must(s.b.ProjectRemap(r, []int32{5, 6, 7, 8, 9}, year, month0, dow1, doy, epoch))
	rows, explain, err := run(t, mem, c, s.plan(pr, "year", "month0", "dow1", "doy", "epoch"), plan.Options{}, nil, 2)
	if err != nil {
		t.Fatalf("%v\n%s", err, explain)
	}
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	want := []any{int64(2001), int64(1), int64(6), int64(47), int64(982281600)}
	for _, row := range rows {
		equalRows(t, [][]any{row}, [][]any{want})
	}
	// DuckDB spells the options in lower case (TPC-H Q7's "year").
	lower := s.fn(urn, "extract", types.Enum("year"), d)
	lmonth := s.fn(urn, "extract", types.Enum("month"), types.Enum("zero"), d)
	pr = must(s.b.ProjectRemap(r, []int32{5, 6}, lower, lmonth))
	if rows, explain, err = run(t, mem, c, s.plan(pr, "year", "month0"), plan.Options{}, nil, 2); err != nil {
		t.Fatalf("lower-case options: %v\n%s", err, explain)
	}
	for _, row := range rows {
		equalRows(t, [][]any{row}, [][]any{{int64(2001), int64(1)}})
	}
	// A component stablerow does not compute is refused by name.
	us := s.fn(urn, "extract", types.Enum("US_YEAR"), d)
	pr = must(s.b.ProjectRemap(r, []int32{5}, us))
	if _, _, err := run(t, mem, c, s.plan(pr, "us"), plan.Options{}, nil, 2); err == nil {
		t.Fatal("extract(US_YEAR) planned")
	}
}
