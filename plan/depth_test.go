package plan_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
)

// deepPlan is SELECT k + 1 FROM t with the project's expression wrapped n
// more times: in k + 1 (shape 0), in CAST(... AS bigint) (1), or in
// IF true THEN ... ELSE 0 (2).
func deepPlan(t testing.TB, c *testCatalog, n, shape int) *substraitpb.Plan {
	s := newSB(t)
	tb := s.scan(c, "t")
	width := int32(len(c.tables["t"].schema.Fields()))
	pr := must(s.b.ProjectRemap(tb, []int32{width}, s.fn(arithURN, "add", s.ref(tb, 0), lit(int64(1)))))
	pb := s.plan(pr, "x")
	exprs := pb.Relations[0].GetRoot().GetInput().GetProject().GetExpressions()
	e := exprs[0]
	add := e.GetScalarFunction()
	one := add.Arguments[1]
	for range n {
		switch shape % 3 {
		case 0:
			e = &substraitpb.Expression{RexType: &substraitpb.Expression_ScalarFunction_{ScalarFunction: &substraitpb.Expression_ScalarFunction{
				FunctionReference: add.FunctionReference, OutputType: add.OutputType,
				Arguments: []*substraitpb.FunctionArgument{{ArgType: &substraitpb.FunctionArgument_Value{Value: e}}, one},
			}}}
		case 1:
			e = &substraitpb.Expression{RexType: &substraitpb.Expression_Cast_{Cast: &substraitpb.Expression_Cast{Type: add.OutputType, Input: e}}}
		case 2:
			e = &substraitpb.Expression{RexType: &substraitpb.Expression_IfThen_{IfThen: &substraitpb.Expression_IfThen{
				Ifs:  []*substraitpb.Expression_IfThen_IfClause{{If: &substraitpb.Expression{RexType: &substraitpb.Expression_Literal_{Literal: &substraitpb.Expression_Literal{LiteralType: &substraitpb.Expression_Literal_Boolean{Boolean: true}}}}, Then: e}},
				Else: one.GetValue(),
			}}}
		}
	}
	exprs[0] = e
	return pb
}

// TestBuildDeepExpression: deep expressions of each kind (nested add,
// cast, if-then) within reach of every layer plan and run; a plan deeper
// than MaxPlanDepth, which only a program can construct (the protobuf
// decoder refuses it as bytes), is refused with ErrInvalidPlan before
// anything recursive reads it, quickly (a fatal Go stack overflow, not
// a panic, is what recursing over millions of levels risks).
func TestBuildDeepExpression(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	for shape := range 3 {
		rows, _, err := run(t, mem, c, deepPlan(t, c, 100, shape), plan.Options{}, nil, 16)
		if err != nil || len(rows) == 0 {
			t.Fatalf("shape %d, 100 levels: %d rows, %v", shape, len(rows), err)
		}
		for _, n := range []int{plan.MaxPlanDepth, 100000} {
			pb := deepPlan(t, c, n, shape)
			start := time.Now()
			_, err := plan.Build(context.Background(), pb, c, plan.Options{})
			if !errors.Is(err, plan.ErrInvalidPlan) || !strings.Contains(err.Error(), "nests more than") {
				t.Fatalf("shape %d, %d levels: err = %v, want ErrInvalidPlan (too deep)", shape, n, err)
			}
			t.Logf("shape %d, %d levels refused in %v", shape, n, time.Since(start))
			// As bytes the decoder refuses it first, with the same kind.
			if n == plan.MaxPlanDepth {
				data, err := proto.Marshal(pb)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := plan.DecodePlan(data); !errors.Is(err, plan.ErrInvalidPlan) {
					t.Fatalf("shape %d, %d levels as bytes: err = %v, want ErrInvalidPlan", shape, n, err)
				}
			}
		}
	}
}

// TestDepthLimitAdmitsDecodablePlans: the deepest plan protobuf-go
// decodes passes the depth check, so the check refuses no plan that can
// arrive as bytes; one level more fails to decode.
func TestDepthLimitAdmitsDecodablePlans(t *testing.T) {
	c := stdCatalog(t, exectest.Mem(t))
	decodes := func(n int) (*substraitpb.Plan, bool) {
		data, err := proto.Marshal(deepPlan(t, c, n, 1))
		if err != nil {
			t.Fatal(err)
		}
		var pb substraitpb.Plan
		return &pb, proto.Unmarshal(data, &pb) == nil
	}
	lo, hi := 0, plan.MaxPlanDepth // cast levels: lo decodes, hi does not
	if _, ok := decodes(hi); ok {
		t.Fatalf("%d cast levels decode", hi)
	}
	for hi-lo > 1 {
		if _, ok := decodes((lo + hi) / 2); ok {
			lo = (lo + hi) / 2
		} else {
			hi = (lo + hi) / 2
		}
	}
	pb, _ := decodes(lo)
	if err := plan.CheckDepth(pb); err != nil {
		t.Fatalf("%d cast levels decode but fail the depth check: %v", lo, err)
	}
	if err := plan.CheckDepth(deepPlan(t, c, hi+1, 1)); err == nil {
		t.Fatalf("%d cast levels pass the depth check", hi+1)
	}
}
