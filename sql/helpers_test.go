package sql

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// fakeCatalog holds tables by lower-case name; each gets the system columns.
type fakeCatalog map[string][]arrow.Field

func (c fakeCatalog) TableSchema(name string) (*arrow.Schema, error) {
	fs, ok := c[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("catalog: %q: %w", name, ErrUnknownTable)
	}
	fs = append(append([]arrow.Field{}, fs...),
		arrow.Field{Name: colRowID, Type: arrow.PrimitiveTypes.Uint64},
		arrow.Field{Name: colRowAddr, Type: arrow.PrimitiveTypes.Uint64})
	return arrow.NewSchema(fs, nil), nil
}

var testCatalog = fakeCatalog{
	"t": {
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	},
	"u": {
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: false},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	},
}

// parseOne parses sql, expects one statement and returns it.
func parseOne(t *testing.T, sql string) Statement {
	t.Helper()
	stmts, err := Parse(sql, testCatalog)
	require.NoError(t, err, sql)
	require.Len(t, stmts, 1)
	return stmts[0]
}

// parseQuery parses a SELECT and re-reads the plan with substrait-go,
// which proves a consumer accepts it; it returns the root relation.
func parseQuery(t *testing.T, sql string) (*Query, plan.Rel, []string) {
	t.Helper()
	q, ok := parseOne(t, sql).(*Query)
	require.True(t, ok, "not a query: %s", sql)
	checkParams(t, q)
	root, names := reread(t, q.Plan)
	return q, root, names
}

func reread(t *testing.T, pb *substraitpb.Plan) (plan.Rel, []string) {
	t.Helper()
	root, names, err := readPlan(pb)
	require.NoError(t, err)
	return root, names
}

// readPlan reads pb's root relation with substrait-go against its
// default collection (the plan's functions by their declared
// signatures), subquery expressions included (substraitfn.ReadRoot).
func readPlan(pb *substraitpb.Plan) (plan.Rel, []string, error) {
	return substraitfn.ReadRoot(pb, extensions.GetDefaultCollectionWithNoError())
}

// typeList renders types as "i64?,string".
func typeList(ts []types.Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ",")
}

// planParams returns the parameter numbers a plan references: every
// DynamicParameter and every UNNEST detail "param".
func planParams(t testing.TB, pb *substraitpb.Plan) map[int]bool {
	t.Helper()
	out := map[int]bool{}
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *substraitpb.DynamicParameter:
			out[int(x.ParameterReference)] = true
		case *substraitpb.ReadRel_ExtensionTable:
			var st structpb.Struct
			if err := x.Detail.UnmarshalTo(&st); err != nil {
				t.Fatalf("detail: %v", err)
			}
			if p, ok := st.Fields["param"]; ok {
				out[int(p.GetNumberValue())] = true
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Kind() != protoreflect.MessageKind {
				return true
			}
			switch {
			case fd.IsList():
				for i := range v.List().Len() {
					walk(v.List().Get(i).Message())
				}
			case fd.IsMap():
			default:
				walk(v.Message())
			}
			return true
		})
	}
	walk(pb.ProtoReflect())
	return out
}

// checkParams asserts the plan references exactly $1..$len(ParamNames).
func checkParams(t testing.TB, q *Query) {
	t.Helper()
	got := planParams(t, q.Plan)
	if len(got) != len(q.ParamNames) {
		t.Fatalf("plan references %v, ParamNames %q", got, q.ParamNames)
	}
	for k := range got {
		if k < 1 || k > len(q.ParamNames) {
			t.Fatalf("plan references $%d, ParamNames %q", k, q.ParamNames)
		}
	}
}
