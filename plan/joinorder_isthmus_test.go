package plan_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// tpchSF1Rows are the TPC-H tables' row counts at scale factor 1 (4.2.5).
var tpchSF1Rows = map[string]uint64{"region": 5, "nation": 25, "supplier": 10_000, "part": 200_000,
	"partsupp": 800_000, "customer": 150_000, "orders": 1_500_000, "lineitem": 6_001_215}

// arrowOf is the Arrow type the engine stores a Substrait base schema
// type as (CHAR(n) and VARCHAR(n) as strings).
func arrowOf(t *substraitpb.Type) arrow.DataType {
	switch k := t.GetKind().(type) {
	case *substraitpb.Type_I32_:
		return arrow.PrimitiveTypes.Int32
	case *substraitpb.Type_I64_:
		return arrow.PrimitiveTypes.Int64
	case *substraitpb.Type_Fp64:
		return arrow.PrimitiveTypes.Float64
	case *substraitpb.Type_Decimal_:
		return &arrow.Decimal128Type{Precision: k.Decimal.Precision, Scale: k.Decimal.Scale}
	case *substraitpb.Type_Date_:
		return arrow.FixedWidthTypes.Date32
	}
	return arrow.BinaryTypes.String
}

// tpchCatalog holds the tables pb reads, with their base schemas' columns
// (lower case), empty, counted as at SF 1.
func tpchCatalog(t *testing.T, pb *substraitpb.Plan) rowCountCatalog {
	c := newCatalog(t, exectest.Mem(t))
	c.noData = true
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if r, ok := m.Interface().(*substraitpb.ReadRel); ok && r.GetNamedTable() != nil {
			name := strings.ToLower(r.GetNamedTable().GetNames()[0])
			if _, seen := c.tables[name]; !seen {
				var fields []arrow.Field
				for i, n := range r.GetBaseSchema().GetNames() {
					fields = append(fields, arrow.Field{Name: strings.ToLower(n), Type: arrowOf(r.GetBaseSchema().GetStruct().GetTypes()[i]), Nullable: true})
				}
				c.add(name, fields, make([][]any, 0))
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				walk(v.Message())
			}
			return true
		})
	}
	walk(pb.ProtoReflect())
	return rowCountCatalog{c}
}

// sf1 counts the tables as at SF 1 (the test tables are empty).
type sf1 struct{ rowCountCatalog }

func (sf1) TableRows(name string) (uint64, bool) { n, ok := tpchSF1Rows[name]; return n, ok }

// TestIsthmusCrossProductsJoined: Isthmus writes TPC-H Q2, Q3 and Q5 as
// a filter over cross products of every FROM item (its plans, from the
// Substrait consumer test suite, in testdata/producers/isthmus/tpch).
// The logical optimizer turns them into hash joins: no nested loop join
// is left, where the producer's order plans one per cross product. Q19's
// one join key is inside each branch of an OR: the OR factoring
// (optimize/orfactor.go) makes it the hash join's key.
// (bench/tpch's TestIsthmusTPCH runs them on SF 0.01 data against the
// suite's SQL.)
func TestIsthmusCrossProductsJoined(t *testing.T) {
	for _, q := range []string{"q02", "q03", "q05", "q19"} {
		t.Run(q, func(t *testing.T) {
			data, err := os.ReadFile("testdata/producers/isthmus/tpch/" + q + ".json")
			if err != nil {
				t.Fatal(err)
			}
			pb, err := plan.DecodePlan(data)
			if err != nil {
				t.Fatal(err)
			}
			cat := sf1{tpchCatalog(t, pb)}
			explain := func(opt plan.Options) string {
				p := proto.Clone(pb).(*substraitpb.Plan)
				n, err := plan.Build(context.Background(), p, cat, opt)
				if err != nil {
					t.Fatal(err)
				}
				return exec.Explain(n, false)
			}
			if e := explain(plan.Options{DisableJoinOrder: true}); !strings.Contains(e, "NestedLoopJoinExec") {
				t.Fatalf("the producer's order: no nested loop join\n%s", e)
			}
			if e := explain(plan.Options{}); strings.Contains(e, "NestedLoopJoinExec") || !strings.Contains(e, "HashJoinExec") {
				t.Fatalf("a nested loop join is left\n%s", e)
			}
		})
	}
}
