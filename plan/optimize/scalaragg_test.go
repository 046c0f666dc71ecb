package optimize_test

import (
	"slices"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/stablerow/stablerow/plan/ingest"
	"github.com/stablerow/stablerow/plan/optimize"
	"github.com/stablerow/stablerow/sql"
)

// TestScalarAggregatesShareMeasures: uncorrelated scalar subqueries over
// one input (TPC-DS Q9's count(*), avg(a), avg(b) over one filter of
// store_sales) leave Decorrelate as aggregates with the same measures,
// byte for byte, which the physical planner computes once (shared.go);
// a subquery over another filter, or a grouped one, keeps its own.
// (Answers: testdata/sql/scalar_subquery_shared_agg.slt, from
// PostgreSQL.)
func TestScalarAggregatesShareMeasures(t *testing.T) {
	for _, c := range []struct {
		sql string
		// measures: each aggregate's measure count; equal: the sizes of
		// the classes of proto-equal aggregates. Both are compared as
		// multisets: the walk's order of sibling fields is protobuf-go's
		// Range order, which it varies from one binary to the next on
		// purpose (detrand), so "plan order" is not an order at all.
		measures []int
		equal    []int
	}{
		{"SELECT CASE WHEN (SELECT count(*) FROM t WHERE id BETWEEN 1 AND 20) > 5 THEN (SELECT avg(score) FROM t WHERE id BETWEEN 1 AND 20) ELSE (SELECT max(score) + 1 FROM t WHERE id BETWEEN 1 AND 20) END FROM u WHERE id = 1",
			[]int{3, 3, 3}, []int{3}},
		// Two filters: two groups; the count(*) both ask is one measure
		// in each.
		{"SELECT (SELECT count(*) FROM t WHERE id > 3), (SELECT count(*) FROM t WHERE id < 3), (SELECT count(*) FROM t WHERE id > 3) + (SELECT sum(id) FROM t WHERE id > 3), (SELECT min(name) FROM t WHERE id < 3) FROM u",
			[]int{2, 2, 2, 2, 2}, []int{2, 3}},
		// Another input: nothing shared.
		{"SELECT (SELECT count(*) FROM t WHERE id > 3), (SELECT avg(score) FROM t WHERE id > 4) FROM u",
			[]int{1, 1}, []int{1, 1}},
	} {
		stmts, err := sql.Parse(c.sql, sqlCatalog{})
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		p := stmts[0].(*sql.Query).Plan
		ck, err := ingest.Check(p)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if err := optimize.Decorrelate(p, ck.Widths, nil); err != nil {
			t.Fatalf("%s: Decorrelate: %v", c.sql, err)
		}
		if _, err := ingest.Check(p); err != nil {
			t.Fatalf("%s: the plan Decorrelate left: %v", c.sql, err)
		}
		var aggs []*substraitpb.AggregateRel
		eachAggregate(p.ProtoReflect(), func(a *substraitpb.AggregateRel) { aggs = append(aggs, a) })
		var got []int
		for _, a := range aggs {
			got = append(got, len(a.GetMeasures()))
		}
		slices.Sort(got)
		if !slices.Equal(got, c.measures) {
			t.Fatalf("%s: measures per aggregate %v, want %v\n%s", c.sql, got, c.measures, protojson.Format(p))
		}
		// The classes of proto-equal aggregates, by size.
		var classes [][]*substraitpb.AggregateRel
		for _, a := range aggs {
			i := slices.IndexFunc(classes, func(cl []*substraitpb.AggregateRel) bool { return proto.Equal(cl[0], a) })
			if i < 0 {
				classes = append(classes, nil)
				i = len(classes) - 1
			}
			classes[i] = append(classes[i], a)
		}
		var sizes []int
		for _, cl := range classes {
			sizes = append(sizes, len(cl))
		}
		slices.Sort(sizes)
		if !slices.Equal(sizes, c.equal) {
			t.Fatalf("%s: classes of equal aggregates of sizes %v, want %v\n%s", c.sql, sizes, c.equal, protojson.Format(p))
		}
	}
}

// eachAggregate calls f with every aggregate in m, outermost first.
func eachAggregate(m protoreflect.Message, f func(*substraitpb.AggregateRel)) {
	if a, ok := m.Interface().(*substraitpb.AggregateRel); ok {
		f(a)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind || fd.IsMap():
		case fd.IsList():
			for i := range v.List().Len() {
				eachAggregate(v.List().Get(i).Message(), f)
			}
		default:
			eachAggregate(v.Message(), f)
		}
		return true
	})
}
