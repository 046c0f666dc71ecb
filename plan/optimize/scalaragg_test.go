package optimize_test

import (
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
		// measures: each aggregate's measure count, in plan order;
		// equal: the groups of aggregates that must be proto-equal.
		measures []int
		equal    [][]int
	}{
		{"SELECT CASE WHEN (SELECT count(*) FROM t WHERE id BETWEEN 1 AND 20) > 5 THEN (SELECT avg(score) FROM t WHERE id BETWEEN 1 AND 20) ELSE (SELECT max(score) + 1 FROM t WHERE id BETWEEN 1 AND 20) END FROM u WHERE id = 1",
			[]int{3, 3, 3}, [][]int{{0, 1, 2}}},
		// Two filters: two groups; the count(*) both ask is one measure
		// in each.
		{"SELECT (SELECT count(*) FROM t WHERE id > 3), (SELECT count(*) FROM t WHERE id < 3), (SELECT count(*) FROM t WHERE id > 3) + (SELECT sum(id) FROM t WHERE id > 3), (SELECT min(name) FROM t WHERE id < 3) FROM u",
			[]int{2, 2, 2, 2, 2}, [][]int{{0, 2, 3}, {1, 4}}},
		// Another input: nothing shared.
		{"SELECT (SELECT count(*) FROM t WHERE id > 3), (SELECT avg(score) FROM t WHERE id > 4) FROM u",
			[]int{1, 1}, nil},
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
		if len(got) != len(c.measures) {
			t.Fatalf("%s: measures per aggregate %v, want %v\n%s", c.sql, got, c.measures, protojson.Format(p))
		}
		for i := range got {
			if got[i] != c.measures[i] {
				t.Fatalf("%s: measures per aggregate %v, want %v\n%s", c.sql, got, c.measures, protojson.Format(p))
			}
		}
		for _, g := range c.equal {
			for _, i := range g[1:] {
				if !proto.Equal(aggs[g[0]], aggs[i]) {
					t.Fatalf("%s: aggregates %d and %d differ\n%s", c.sql, g[0], i, protojson.Format(p))
				}
			}
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
