package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// buildErr builds pb and returns the error (nil plan on success is a bug).
func buildErr(t *testing.T, c plan.Catalog, pb *substraitpb.Plan) error {
	t.Helper()
	n, err := plan.Build(context.Background(), pb, c, plan.Options{})
	if err == nil {
		t.Fatalf("Build succeeded:\n%s", exec.Explain(n, false))
	}
	return err
}

// withRoot replaces the root input of a copy of pb.
func withRoot(pb *substraitpb.Plan, input *substraitpb.Rel) *substraitpb.Plan {
	cp := proto.Clone(pb).(*substraitpb.Plan)
	cp.Relations[0].GetRoot().Input = input
	return cp
}

func TestBuildErrors(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	seed := seedPlan(t, c, false)

	t.Run("nil-plan", func(t *testing.T) {
		isErr(t, buildErr(t, c, nil), plan.ErrInvalidPlan)
	})
	t.Run("no-root", func(t *testing.T) {
		isErr(t, buildErr(t, c, &substraitpb.Plan{}), plan.ErrInvalidPlan)
	})
	t.Run("unsupported-relation", func(t *testing.T) {
		err := buildErr(t, c, withRoot(seed, &substraitpb.Rel{RelType: &substraitpb.Rel_Expand{Expand: &substraitpb.ExpandRel{}}}))
		isErr(t, err, plan.ErrUnsupported)
		if !strings.Contains(err.Error(), "plan: unsupported relation: ExpandRel") {
			t.Fatal(err)
		}
		in := seed.Relations[0].GetRoot().Input
		// Nested under relations that are supported.
		expand := &substraitpb.Rel{RelType: &substraitpb.Rel_Expand{Expand: &substraitpb.ExpandRel{Input: in}}}
		cross := &substraitpb.Rel{RelType: &substraitpb.Rel_Cross{Cross: &substraitpb.CrossRel{Left: in, Right: expand}}}
		err = buildErr(t, c, withRoot(seed, &substraitpb.Rel{RelType: &substraitpb.Rel_Fetch{Fetch: &substraitpb.FetchRel{Input: cross}}}))
		if !strings.Contains(err.Error(), "plan: unsupported relation: ExpandRel") {
			t.Fatal(err)
		}
	})
	t.Run("bad-field-reference", func(t *testing.T) {
		// Point the sort key at field 99: substrait-go errors or panics; both are ErrInvalidPlan.
		pb := proto.Clone(seed).(*substraitpb.Plan)
		sort := pb.Relations[0].GetRoot().Input.GetSort()
		sort.Sorts[0].Expr.GetSelection().GetDirectReference().GetStructField().Field = 99
		isErr(t, buildErr(t, c, pb), plan.ErrInvalidPlan)
		// And a join key beyond both inputs.
		pb = proto.Clone(seed).(*substraitpb.Plan)
		join := pb.Relations[0].GetRoot().Input.GetSort().Input.GetProject().Input.GetJoin()
		join.Expression.GetScalarFunction().Arguments[1].GetValue().GetSelection().GetDirectReference().GetStructField().Field = 1000
		isErr(t, buildErr(t, c, pb), plan.ErrInvalidPlan)
	})
	t.Run("unknown-function", func(t *testing.T) {
		pb := proto.Clone(seed).(*substraitpb.Plan)
		pb.Extensions[0].GetExtensionFunction().Name = "no_such_function:any_any"
		err := buildErr(t, c, pb)
		isErr(t, err, plan.ErrUnsupported)
		if !strings.Contains(err.Error(), "plan: unsupported function: no_such_function") {
			t.Fatal(err)
		}
		pb = proto.Clone(seed).(*substraitpb.Plan)
		pb.ExtensionUrns[0].Urn = "extension:nobody:nothing"
		isErr(t, buildErr(t, c, pb), plan.ErrUnsupported) // nobody's "equal" is not the standard one
	})
	t.Run("unsupported-function", func(t *testing.T) {
		s := newSB(t)
		tb := s.scan(c, "t")
		f := must(s.b.Filter(tb, s.fn(cmpURN, "equal", s.fn(arithURN, "power", s.ref(tb, 0), lit(int64(2))), lit(int64(0)))))
		err := buildErr(t, c, s.plan(f, "id", "name", "score", "_rowid", "_rowaddr"))
		isErr(t, err, plan.ErrUnsupported)
		if !strings.Contains(err.Error(), "plan: unsupported function: power") {
			t.Fatal(err)
		}
	})
	t.Run("unknown-table", func(t *testing.T) {
		err := buildErr(t, newCatalog(t, mem), seed)
		isErr(t, err, plan.ErrUnknownTable)
	})
	t.Run("base-schema-mismatch", func(t *testing.T) {
		c2 := newCatalog(t, mem)
		c2.add("t", tUser[:2], nil)
		isErr(t, buildErr(t, c2, seed), plan.ErrInvalidPlan)
	})
	t.Run("left-join-left-condition", func(t *testing.T) {
		s := newSB(t)
		v := s.unnestParam(1)
		tb := s.scan(c, "t")
		cond := s.fn(boolURN, "and", s.fn(cmpURN, "equal", s.jref(v, tb, 0), s.jref(v, tb, 5)), s.fn(cmpURN, "gt", s.jref(v, tb, 1), lit(int64(1))))
		j := must(s.b.Join(v, tb, cond, 3 /* LEFT */))
		// A conjunct on the preserved side of a LEFT join cannot filter
		// that input: it is the hash join's residual predicate.
		n, err := plan.Build(context.Background(), s.plan(j, "a", "b", "c", "d", "e", "f", "g"), c, plan.Options{DisableIndexes: true})
		if err != nil {
			t.Fatal(err)
		}
		if ex := exec.Explain(n, false); !strings.Contains(ex, "HashJoinExec: type=Left on=[(key0, _rowid)] filter=ord@1 > 1") {
			t.Fatal(ex)
		}
	})
	t.Run("bad-extension-detail", func(t *testing.T) {
		s := newSB(t)
		for _, d := range []map[string]any{
			{"relation": "stablerow.nope"},
			{"relation": "stablerow.unnest", "element_type": "i64", "ordinality": true},
			{"relation": "stablerow.unnest", "param": 1.5, "element_type": "i64", "ordinality": true},
			{"relation": "stablerow.unnest", "values": []any{"x"}, "element_type": "i64", "ordinality": true},
			{"relation": "stablerow.unnest", "param": 1, "element_type": "i64", "ordinality": false},
			{"relation": "stablerow.generate_series", "start": 1, "stop": 3, "step": 0},
		} {
			u := s.extTable(d, []string{"a", "b"}, []types.Type{i64(true), i64(false)})
			if _, err := plan.Build(context.Background(), s.plan(u, "a", "b"), c, plan.Options{}); err == nil {
				t.Fatalf("detail %v: no error", d)
			}
		}
	})
}

func TestExecutionErrors(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	seed := seedPlan(t, c, false)
	for _, opt := range []plan.Options{{}, {DisableIndexes: true}} {
		_, _, err := run(t, mem, c, seed, opt, nil, 4)
		isErr(t, err, plan.ErrMissingParam)
		_, _, err = run(t, mem, c, seed, opt, map[int]any{1: []string{"x"}}, 4)
		isErr(t, err, plan.ErrParamType)
	}
	s := newSB(t)
	tb := s.scan(c, "t")
	p := must(s.b.GetExprBuilder().DynamicParam(i64(true), 2).Build())
	f := must(s.b.Filter(tb, s.fn(cmpURN, "gt", s.ref(tb, 0), p)))
	pr := must(s.b.ProjectRemap(f, []int32{5}, s.ref(f, 0)))
	pb := s.plan(pr, "id")
	_, _, err := run(t, mem, c, pb, plan.Options{}, map[int]any{1: int64(3)}, 4)
	isErr(t, err, plan.ErrMissingParam)
	_, _, err = run(t, mem, c, pb, plan.Options{}, map[int]any{2: "x"}, 4)
	isErr(t, err, plan.ErrParamType)
	rows, _, err := run(t, mem, c, pb, plan.Options{}, map[int]any{2: 14}, 4) // a Go int binds as i64
	if err != nil {
		t.Fatal(err)
	}
	equalRows(t, rows, [][]any{{int64(15)}, {int64(16)}})
}
