package difftest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/sqltest"
)

func s(v string) *string { return &v }

func TestDiffDetectsPlantedDifferences(t *testing.T) {
	base := &Outcome{Cols: []TypeClass{ClassInt, ClassText}, Rows: [][]*string{{s("1"), s("a")}, {s("2"), nil}}}
	same := &Outcome{Cols: []TypeClass{ClassInt, ClassText}, Rows: [][]*string{{s("1"), s("a")}, {s("2"), nil}}}
	if d := Diff(base, same, true); d != "" {
		t.Fatalf("equal outcomes diverge: %s", d)
	}
	swapped := &Outcome{Cols: base.Cols, Rows: [][]*string{{s("2"), nil}, {s("1"), s("a")}}}
	if d := Diff(base, swapped, false); d != "" {
		t.Fatalf("unordered comparison is not a multiset one: %s", d)
	}
	planted := map[string]*Outcome{
		"order":          swapped,
		"NULL vs ''":     {Cols: base.Cols, Rows: [][]*string{{s("1"), s("a")}, {s("2"), s("")}}},
		"value":          {Cols: base.Cols, Rows: [][]*string{{s("1"), s("b")}, {s("2"), nil}}},
		"missing row":    {Cols: base.Cols, Rows: [][]*string{{s("1"), s("a")}}},
		"duplicated row": {Cols: base.Cols, Rows: [][]*string{{s("1"), s("a")}, {s("1"), s("a")}, {s("2"), nil}}},
		"type":           {Cols: []TypeClass{ClassFloat, ClassText}, Rows: base.Rows},
		"error":          {Err: errors.New("boom")},
	}
	for name, o := range planted {
		if d := Diff(base, o, true); d == "" {
			t.Errorf("%s: planted difference not detected", name)
		}
	}
	if d := Diff(&Outcome{Err: errors.New("22003"), SQLState: "22003"}, base, true); d == "" {
		t.Error("PostgreSQL error vs stablerow rows not detected")
	}
	if d := Diff(&Outcome{Err: errors.New("x")}, &Outcome{Err: errors.New("y")}, true); d != "" {
		t.Errorf("two errors diverge: %s", d)
	}
	if d := Diff(base, &Outcome{Err: &PanicError{Value: "x"}}, true); !strings.Contains(d, "panicked") {
		t.Errorf("a panic is not reported: %q", d)
	}
	if d := Diff(&Outcome{Affected: 2}, &Outcome{Affected: 3}, false); d == "" {
		t.Error("rows-affected difference not detected")
	}
}

// TestDiffZeroSignTies: in an ordered comparison, rows that differ only
// by the sign of a zero are ties (-0 = 0 in float comparison), so their
// order is either; a zero's sign is still a difference of value, and
// other rows keep their order.
func TestDiffZeroSignTies(t *testing.T) {
	cols := []TypeClass{ClassText, ClassFloat}
	pg := &Outcome{Cols: cols, Rows: [][]*string{{s("a"), s("-0")}, {s("a"), s("0")}, {s("a"), s("1")}}}
	tied := &Outcome{Cols: cols, Rows: [][]*string{{s("a"), s("0")}, {s("a"), s("-0")}, {s("a"), s("1")}}}
	if d := Diff(pg, tied, true); d != "" {
		t.Fatalf("rows tied by -0 = 0 in another order diverge: %s", d)
	}
	for name, o := range map[string]*Outcome{
		"sign lost":   {Cols: cols, Rows: [][]*string{{s("a"), s("0")}, {s("a"), s("0")}, {s("a"), s("1")}}},
		"order moved": {Cols: cols, Rows: [][]*string{{s("a"), s("1")}, {s("a"), s("-0")}, {s("a"), s("0")}}},
	} {
		if d := Diff(pg, o, true); d == "" {
			t.Errorf("%s: planted difference not detected", name)
		}
	}
}

// TestPGText checks the rendering against PostgreSQL's documented text
// output (boolout t/f; float8out with extra_float_digits = 1).
func TestPGText(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fb := array.NewFloat64Builder(mem)
	defer fb.Release()
	fb.AppendValues([]float64{math.NaN(), math.Inf(-1), 1e15, 123456789012, 0.0001, 1.5}, nil)
	fb.AppendNull()
	fa := fb.NewArray()
	defer fa.Release()
	want := []string{"NaN", "-Infinity", "1e+15", "123456789012", "0.0001", "1.5"}
	for i, w := range want {
		got, err := pgText(fa, i)
		if err != nil || got == nil || *got != w {
			t.Errorf("float %d: got %v, %v; want %s", i, got, err, w)
		}
	}
	if got, _ := pgText(fa, len(want)); got != nil {
		t.Errorf("NULL rendered as %q", *got)
	}
	bb := array.NewBooleanBuilder(mem)
	defer bb.Release()
	bb.AppendValues([]bool{true, false}, nil)
	ba := bb.NewArray()
	defer ba.Release()
	for i, w := range []string{"t", "f"} {
		if got, _ := pgText(ba, i); got == nil || *got != w {
			t.Errorf("bool %d: got %v, want %s", i, got, w)
		}
	}
}

// mutating wraps a backend and changes the first value of every non-empty
// query result: the planted bug the harness must find.
type mutating struct{ *Stablerow }

func (m mutating) Run(ctx context.Context, sql string, query bool) *Outcome {
	o := m.Stablerow.Run(ctx, sql, query)
	if query && o.Err == nil && len(o.Rows) > 0 && len(o.Rows[0]) > 0 {
		o.Rows[0][0] = s("planted")
	}
	return o
}

// TestRunnerFindsAndShrinksPlantedBug runs generated cases with a
// mutated stablerow in PostgreSQL's seat: the runner must report a
// divergence and shrink it to a smaller case that still shows it.
func TestRunnerFindsAndShrinksPlantedBug(t *testing.T) {
	ctx := context.Background()
	r := &Runner{PG: mutating{NewStablerow(engine.Options{})}, SR: NewStablerow(engine.Options{})}
	found := false
	for i := 0; i < 200 && !found; i++ {
		g := caseGen(7, i)
		opt := g.options()
		c := g.Case()
		d, err := r.RunCase(ctx, c, opt)
		if err != nil {
			t.Fatal(err)
		}
		if d == nil || d.Kind != "query: rows differ" {
			continue
		}
		found = true
		before := len(d.SLT())
		small, err := r.Shrink(ctx, d, 300)
		if err != nil {
			t.Fatal(err)
		}
		if small.Kind != d.Kind {
			t.Fatalf("shrinking changed the kind: %s -> %s", d.Kind, small.Kind)
		}
		if after := len(small.SLT()); after > before {
			t.Errorf("shrunk reproducer grew: %d -> %d bytes", before, after)
		}
		if !strings.Contains(small.SLT(), "\nquery ") {
			t.Errorf("reproducer has no query record:\n%s", small.SLT())
		}
	}
	if !found {
		t.Fatal("the planted difference was never detected")
	}
}

// TestGeneratedCasesAreDeterministic: -seed S -case I must rerun exactly
// the case the sequence ran.
func TestGeneratedCasesAreDeterministic(t *testing.T) {
	for i := 0; i < 50; i++ {
		a, b := caseGen(3, i).Case(), caseGen(3, i).Case()
		if a.Query.SQL() != b.Query.SQL() || strings.Join(a.Setup(), ";") != strings.Join(b.Setup(), ";") {
			t.Fatalf("case %d differs between two draws", i)
		}
	}
}

// TestKnownDivergencesStayNarrow: a dialect difference must not swallow a
// bug of the same shape. PostgreSQL raising where stablerow does not, or
// the other way round, is a bug whether the raising expression is a
// constant (both fold it while planning) or holds a column; an error
// beside a NULL constant operand is a bug too (both fold it).
func TestKnownDivergencesStayNarrow(t *testing.T) {
	col := &Expr{Op: "col", Type: TInt, Text: "a.k"}
	lit := &Expr{Op: "lit", Type: TInt, Text: "CAST(1 AS BIGINT)"}
	null := &Expr{Op: "lit", Type: TInt, Text: "CAST(NULL AS BIGINT)"}
	neg := func(e *Expr) *Expr { return &Expr{Op: "neg", Type: TInt, Args: []*Expr{e}, Raises: true} }
	add := func(a, b *Expr) *Expr {
		return &Expr{Op: "bin", Type: TInt, Text: "+", Args: []*Expr{a, b}, Raises: true}
	}
	pgErr := &Outcome{Err: errors.New("bigint out of range"), SQLState: "22003"}
	noRows := &Outcome{Cols: []TypeClass{ClassInt}}
	srErr := &Outcome{Err: errors.New("overflow")}
	ok := &Outcome{Cols: []TypeClass{ClassInt}, Rows: [][]*string{{s("1")}}}
	never := func(string) *Outcome { return &Outcome{} }
	match := func(sel *Expr, pg, sr *Outcome) string {
		q := &Query{Select: []*Expr{sel}, Limit: -1, Offset: -1, From: From{Kind: FromTable, T0: "t0"}}
		d := &Divergence{Case: &Case{Query: q}, SQL: q.SQL(), PG: pg, SR: sr, IsQuery: true}
		for _, k := range knownDivergences {
			if k.Match(d, never) {
				return k.Name
			}
		}
		return ""
	}
	// stablerow folds constants while planning as PostgreSQL does (issue
	// 26), so a raising constant over no rows is no dialect difference any
	// more: the rule that excused it is gone and the divergence is a bug.
	if m := match(neg(lit), pgErr, noRows); m != "" {
		t.Errorf("a raising constant over no rows matched %q", m)
	}
	if m := match(neg(col), pgErr, noRows); m != "" {
		t.Errorf("a raising column expression matched %q", m)
	}
	if m := match(neg(lit), pgErr, ok); m != "" {
		t.Errorf("a raising constant over rows stablerow returned matched %q", m)
	}
	// stablerow folds a strict operator with a NULL constant operand as
	// PostgreSQL does (issue 26): raising there is a bug, not a dialect.
	if m := match(add(null, neg(col)), ok, srErr); m != "" {
		t.Errorf("NULL + raising matched %q", m)
	}
	if m := match(add(lit, neg(col)), ok, srErr); m != "" {
		t.Errorf("1 + raising matched %q", m)
	}
	// stablerow evaluates the select list under LIMIT where PostgreSQL
	// does (make_sort_input_target): PostgreSQL raising on a row under a
	// LIMIT where stablerow returns rows is a bug, also where the query
	// without its LIMIT raises on stablerow.
	limited := &Query{Select: []*Expr{neg(col)}, Limit: 1, Offset: -1, From: From{Kind: FromTable, T0: "t0"},
		OrderBy: []Order{{E: col}}}
	d := &Divergence{Case: &Case{Query: limited}, SQL: limited.SQL(), PG: pgErr, SR: ok, IsQuery: true}
	raisesWithout := func(string) *Outcome { return srErr }
	for _, k := range knownDivergences {
		if k.Match(d, raisesWithout) {
			t.Errorf("a row raising under LIMIT matched %q", k.Name)
		}
	}
}

// TestReproducerParses: the .slt a report prints is valid sqltest input.
func TestReproducerParses(t *testing.T) {
	c := caseGen(1, 0).Case()
	// Unordered, so the record is rowsort (as the expectation below is).
	c.Query.OrderBy, c.Query.OrderAll, c.Query.Limit, c.Query.Offset = nil, false, -1, -1
	d := &Divergence{Case: c, SQL: c.Query.SQL(), IsQuery: true, Kind: "test",
		PG: &Outcome{Cols: []TypeClass{ClassBool, ClassText}, Rows: [][]*string{{s("t"), s("")}, {nil, s("x")}}}}
	text := d.SLT()
	recs, err := sqltest.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	last := recs[len(recs)-1]
	want := []string{"NULL x", "true (empty)"} // rowsort
	if c.Query.Ordered() {
		want = []string{"true (empty)", "NULL x"} // as PostgreSQL gave them
	}
	if last.Kind != sqltest.KindQuery || last.Types != "BT" || !slices.Equal(last.Expect, want) {
		t.Fatalf("last record %+v\n%s", last, text)
	}
}

// TestGeneratedQueriesCompareExactly: a LIMIT or OFFSET only comes with
// an ORDER BY (made total by the tiebreakers), and no ORDER BY key is a
// bare literal; else the comparison would judge arbitrary rows.
func TestGeneratedQueriesCompareExactly(t *testing.T) {
	for i := 0; i < 2000; i++ {
		q := caseGen(11, i).Case().Query
		if (q.Limit >= 0 || q.Offset >= 0) && !q.Ordered() {
			t.Fatalf("case %d: LIMIT/OFFSET without ORDER BY: %s", i, q.SQL())
		}
		for _, o := range q.OrderBy {
			if o.E.Op == "lit" {
				t.Fatalf("case %d: literal ORDER BY key: %s", i, q.SQL())
			}
		}
		// OrderAll orders by every output column: total up to equal rows.
		if q.Ordered() && !q.OrderAll && len(q.Tiebreak) == 0 {
			t.Fatalf("case %d: ORDER BY without tiebreakers: %s", i, q.SQL())
		}
	}
}

// TestNumericQuotientsCompareByValue: normalization 8. A quotient column
// (stablerow scale 20) equals PostgreSQL's per-value text up to trailing
// zeros, and PostgreSQL's extra digits of a tiny quotient round to 20;
// any other digit differing is still a divergence, and a numeric column
// of a small scale still compares as text.
func TestNumericQuotientsCompareByValue(t *testing.T) {
	num := []TypeClass{"numeric"}
	out := func(vs ...string) *Outcome {
		o := &Outcome{Cols: slices.Clone(num)}
		for _, v := range vs {
			if v == "NULL" {
				o.Rows = append(o.Rows, []*string{nil})
			} else {
				o.Rows = append(o.Rows, []*string{s(v)})
			}
		}
		return o
	}
	pg := func() *Outcome {
		return out("2.5000000000000000", "0.33333333333333333333", "0.000033333333333333333333", "0.000010000010000010000050", "NULL", "0.00000000000000000000")
	}
	sr := out("2.50000000000000000000", "0.33333333333333333333", "0.00003333333333333333", "0.00001000001000001000", "NULL", "0.00000000000000000000")
	if d := Diff(pg(), sr, true); d != "" {
		t.Fatalf("equal quotients diverge: %s", d)
	}
	for _, bad := range []*Outcome{
		out("2.50000000000000000001", "0.33333333333333333333", "0.00003333333333333333", "0.00001000001000001000", "NULL", "0.00000000000000000000"),
		out("2.50000000000000000000", "0.33333333333333333334", "0.00003333333333333333", "0.00001000001000001000", "NULL", "0.00000000000000000000"),
		out("2.50000000000000000000", "0.33333333333333333333", "0.00003333333333333334", "0.00001000001000001000", "NULL", "0.00000000000000000000"),
		out("2.50000000000000000000", "0.33333333333333333333", "0.00003333333333333333", "0.00001000001000001001", "NULL", "0.00000000000000000000"),
	} {
		if d := Diff(pg(), bad, true); d == "" {
			t.Errorf("planted quotient difference not detected: %v", bad)
		}
	}
	if d := Diff(out("2.50"), out("2.500"), true); d == "" {
		t.Error("a numeric of a small scale compares by value: its scale is no longer checked")
	}
}

// TestNumericMeansCompareAtSixteenDigits: normalization 8 for
// avg(numeric)'s column of scale 16 (psql 15's avg of numeric(20,2)
// values: 2.25 and 9999.98666... print 16 digits there too, 0.375 and
// 0.01666... 20, 61728395.505 12): every digit stablerow holds is
// compared, one differing in its 16th is a divergence.
func TestNumericMeansCompareAtSixteenDigits(t *testing.T) {
	col := func(vs ...string) *Outcome {
		o := &Outcome{Cols: []TypeClass{"numeric"}}
		for _, v := range vs {
			o.Rows = append(o.Rows, []*string{s(v)})
		}
		return o
	}
	pg := func() *Outcome {
		return col("2.2500000000000000", "9999.9866666666666667", "0.37500000000000000000", "0.01666666666666666667", "61728395.505000000000")
	}
	if d := Diff(pg(), col("2.2500000000000000", "9999.9866666666666667", "0.3750000000000000", "0.0166666666666667", "61728395.5050000000000000"), true); d != "" {
		t.Fatalf("equal means diverge: %s", d)
	}
	for _, bad := range []*Outcome{
		col("2.2500000000000001", "9999.9866666666666667", "0.3750000000000000", "0.0166666666666667", "61728395.5050000000000000"),
		col("2.2500000000000000", "9999.9866666666666666", "0.3750000000000000", "0.0166666666666667", "61728395.5050000000000000"),
		col("2.2500000000000000", "9999.9866666666666667", "0.3750000000000000", "0.0166666666666666", "61728395.5050000000000000"),
		col("2.2500000000000000", "9999.9866666666666667", "0.3750000000000000", "0.0166666666666667", "61728395.5050000000000001"),
	} {
		if d := Diff(pg(), bad, true); d == "" {
			t.Errorf("planted mean difference not detected: %v", bad)
		}
	}
}

// TestZeroPadded: the known divergence for mixed-scale numeric results
// accepts only PostgreSQL's value padded with fractional zeros.
func TestZeroPadded(t *testing.T) {
	for _, c := range []struct {
		narrow, wide string
		want         bool
	}{
		{"0.13", "0.1300", true}, {"5", "5.00", true}, {"-2.5", "-2.500", true},
		{"0.13", "0.13", false}, {"0.13", "0.1301", false}, {"5", "50", false},
		{"5", "5.", false}, {"abc", "abc0", false}, {"1.2", "1.20.0", false},
	} {
		if got := zeroPadded(c.narrow, c.wide); got != c.want {
			t.Errorf("zeroPadded(%q, %q) = %v, want %v", c.narrow, c.wide, got, c.want)
		}
	}
}

// TestMixedScaleUnordered: the mixed-scale known divergence pairs the
// rows of an unordered answer by their value, not by their text, which
// padding can sort apart (seed 781 case 10980); a real difference still
// shows, and in an ordered answer rows pair by position.
func TestMixedScaleUnordered(t *testing.T) {
	col := func(vs ...string) *Outcome {
		o := &Outcome{Cols: []TypeClass{"numeric"}}
		for _, v := range vs {
			if v == "NULL" {
				o.Rows = append(o.Rows, []*string{nil})
				continue
			}
			o.Rows = append(o.Rows, []*string{s(v)})
		}
		return o
	}
	var mixed KnownDivergence
	for _, k := range knownDivergences {
		if strings.HasPrefix(k.Name, "numeric scale of a mixed-scale") {
			mixed = k
		}
	}
	const sql = "WITH c_t0 AS (SELECT DISTINCT * FROM t0 AS a) SELECT coalesce(b.c2, (CAST('2.50' AS NUMERIC(8,2)) * a.c2), a.c2) FROM c_t0 AS a CROSS JOIN c_t0 AS b"
	pg := col("-999999.99", "-2499999.9750", "-999999.99", "NULL")
	d := &Divergence{SQL: sql, IsQuery: true, PG: pg, SR: col("NULL", "-999999.9900", "-2499999.9750", "-999999.9900")}
	if !mixed.Match(d, nil) {
		t.Error("the padded values of an unordered answer are not matched")
	}
	d.SR = col("NULL", "-999999.9900", "-2499999.9750", "-999999.9800")
	if mixed.Match(d, nil) {
		t.Error("a different value in an unordered answer is matched")
	}
	d.SR, d.Ordered = col("NULL", "-999999.9900", "-2499999.9750", "-999999.9900"), true
	if mixed.Match(d, nil) {
		t.Error("an ordered answer in another order is matched")
	}
	d.SR = col("-999999.9900", "-2499999.9750", "-999999.9900", "NULL")
	if !mixed.Match(d, nil) {
		t.Error("the padded values of an ordered answer are not matched")
	}
}

// TestAvgOfIntegersComparesAtPGDigits: PostgreSQL's avg(integer) is a
// numeric of 16 significant digits, whose nearest double may be one ulp
// from stablerow's exact quotient (difftest seed 20261206 case 41104); a
// difference at those digits is still one.
func TestAvgOfIntegersComparesAtPGDigits(t *testing.T) {
	out := func(cls TypeClass, v string) *Outcome {
		return &Outcome{Cols: []TypeClass{cls}, Rows: [][]*string{{s(v)}}}
	}
	if d := Diff(out("numeric", "15446.333333333333"), out(ClassFloat, "15446.333333333334"), true); d != "" {
		t.Fatalf("avg 46339/3 diverges: %s", d)
	}
	for _, bad := range []string{"15446.333333333336", "15446.33333333333"} {
		if d := Diff(out("numeric", "15446.333333333333"), out(ClassFloat, bad), true); d == "" {
			t.Errorf("planted avg difference %s not detected", bad)
		}
	}
	if d := Diff(out("numeric", "1.5"), out(ClassFloat, "1.5000000000000002"), true); d == "" {
		t.Error("a value of few digits still compares exactly")
	}
}

// TestAvgAtPGDigitsTakesOwnRow: a PostgreSQL quotient rounded half-way
// between two doubles (96726380871223896: ...888 and ...904) is within
// the bound of both; it reads as its own row's nearest double, not as
// another row's that is also in the bound (seed 20261234 case 44360).
func TestAvgAtPGDigitsTakesOwnRow(t *testing.T) {
	col := func(cls TypeClass, vs ...string) *Outcome {
		o := &Outcome{Cols: []TypeClass{cls}}
		for _, v := range vs {
			o.Rows = append(o.Rows, []*string{s(v)})
		}
		return o
	}
	pg := col("numeric", "96726380871223892", "96726380871223896")
	sr := col(ClassFloat, "9.672638087122389e+16", "9.67263808712239e+16")
	if d := Diff(pg, sr, false); d != "" {
		t.Fatalf("the exact quotients diverge: %s", d)
	}
	pg = col("numeric", "96726380871223892", "96726380871223896")
	sr = col(ClassFloat, "9.672638087122389e+16", "9.672638087122392e+16")
	if d := Diff(pg, sr, false); d == "" {
		t.Error("a quotient one ulp past the bound is not detected")
	}
}

// TestRunNamesEveryDivergentCase: a run shrinks and reports the first
// case of each divergence kind, and names every later one (the log's
// "again" lines and the summary's case list), so a long run's every case
// reruns alone.
func TestRunNamesEveryDivergentCase(t *testing.T) {
	ctx := context.Background()
	r := &Runner{PG: mutating{NewStablerow(engine.Options{})}, SR: NewStablerow(engine.Options{})}
	var log strings.Builder
	sum, err := r.Run(ctx, Config{Seed: 7, Cases: 60, Case: -1, Shrink: 20}, &log)
	if err != nil {
		t.Fatal(err)
	}
	ns := sum.CaseNumbers["query: rows differ"]
	if len(ns) < 2 {
		t.Fatalf("want several divergent cases of the planted kind, got %v", ns)
	}
	if got := sum.Classes["query: rows differ"]; got != len(ns) {
		t.Errorf("count %d, case list %v", got, ns)
	}
	for _, n := range ns[1:] {
		if want := fmt.Sprintf("case %d of seed 7: query: rows differ, again (rerun: -seed 7 -case %d)", n, n); !strings.Contains(log.String(), want) {
			t.Errorf("log does not name case %d", n)
		}
	}
	var out strings.Builder
	sum.Print(&out)
	if !strings.Contains(out.String(), "cases: "+caseList(ns)) {
		t.Errorf("summary does not list the cases %v:\n%s", ns, out.String())
	}
}

// fixedPG answers every statement with one outcome: PostgreSQL's seat in
// tests of the comparison.
type fixedPG struct{ o *Outcome }

func (f fixedPG) Reset(context.Context) error                { return nil }
func (f fixedPG) Run(context.Context, string, bool) *Outcome { return f.o }
func (f fixedPG) Close() error                               { return nil }

// TestZeroTiesCutByLimit: -0 and 0 tie under ORDER BY, so a LIMIT or
// OFFSET may keep either; an answer that differs from PostgreSQL's only
// in the signs of zeros is no divergence there (seed 20261240 case
// 53097), and still one without a LIMIT or OFFSET.
func TestZeroTiesCutByLimit(t *testing.T) {
	ctx := context.Background()
	sr := NewStablerow(engine.Options{})
	defer sr.Close()
	const from = "SELECT v FROM (VALUES (CAST('-0' AS DOUBLE PRECISION)), (CAST('0' AS DOUBLE PRECISION)), (CAST('-0' AS DOUBLE PRECISION)), (CAST('1' AS DOUBLE PRECISION))) AS t(v) ORDER BY v"
	for _, c := range []struct {
		sql  string
		same bool
	}{{from + " LIMIT 2", true}, {from + " OFFSET 1", true}, {from, false}} {
		got := sr.Run(ctx, c.sql, true)
		if got.Err != nil {
			t.Fatal(got.Err)
		}
		// PostgreSQL's zeros all of one sign, which stablerow's are
		// not all of: the same rows but for the signs, another multiset.
		sign := "-0"
		for _, r := range got.Rows {
			if *r[0] == "-0" {
				sign = "0"
			}
		}
		flipped := *got
		flipped.Rows = nil
		zeros := 0
		for _, r := range got.Rows {
			v := *r[0]
			if v == "0" || v == "-0" {
				v = sign
				zeros++
			}
			flipped.Rows = append(flipped.Rows, []*string{s(v)})
		}
		if zeros == 0 {
			t.Fatalf("%s: no zero in %v: a test that cannot fail", c.sql, got.Rows)
		}
		r := &Runner{PG: fixedPG{&flipped}, SR: sr}
		d := r.compare(ctx, caseGen(7, 0).Case(), c.sql, true, true)
		if (d == nil) != c.same {
			t.Errorf("%s: divergence %v, want none: %v", c.sql, d, c.same)
		}
	}
}
