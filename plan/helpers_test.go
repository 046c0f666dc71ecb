package plan_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
)

const (
	cmpURN   = extensions.SubstraitDefaultURNPrefix + "functions_comparison"
	boolURN  = extensions.SubstraitDefaultURNPrefix + "functions_boolean"
	arithURN = extensions.SubstraitDefaultURNPrefix + "functions_arithmetic"
	aggURN   = extensions.SubstraitDefaultURNPrefix + "functions_aggregate_generic"
)

// testTable is an in-memory table: rows of Go values over schema (user
// columns then _rowid, _rowaddr as uint64), with unique "indexes" on the
// columns in unique.
type testTable struct {
	cat    *testCatalog
	name   string
	schema *arrow.Schema
	rows   [][]any
	unique map[int]bool
}

// takeCall records one TakeByKey call the planner made.
type takeCall struct {
	table           string
	drivingKey, key int
	columns         []int
	ok              bool
	drivingKeyType  arrow.DataType
}

// testCatalog serves testTables; every ValuesExec its scans create is
// released at test cleanup (before the allocator's zero check).
type testCatalog struct {
	mem    memory.Allocator
	tables map[string]*testTable
	takes  []takeCall
	vals   []*exec.ValuesExec
	// noData: scans are empty (the fuzz target builds plans it never runs,
	// and must not accumulate batches).
	noData bool
}

var errNoTable = fmt.Errorf("test catalog: %w", plan.ErrUnknownTable)

func newCatalog(t testing.TB, mem memory.Allocator) *testCatalog {
	c := &testCatalog{mem: mem, tables: map[string]*testTable{}}
	t.Cleanup(func() {
		for _, v := range c.vals {
			v.Release()
		}
	})
	return c
}

func (c *testCatalog) add(name string, user []arrow.Field, rows [][]any, unique ...int) *testTable {
	fields := append(append([]arrow.Field{}, user...),
		arrow.Field{Name: "_rowid", Type: arrow.PrimitiveTypes.Uint64},
		arrow.Field{Name: "_rowaddr", Type: arrow.PrimitiveTypes.Uint64})
	t := &testTable{cat: c, name: name, schema: arrow.NewSchema(fields, nil), rows: rows, unique: map[int]bool{}}
	for _, u := range unique {
		t.unique[u] = true
	}
	c.tables[name] = t
	return t
}

func (c *testCatalog) Table(name string) (plan.TableProvider, error) {
	t, ok := c.tables[name]
	if !ok {
		return nil, fmt.Errorf("%q: %w", name, errNoTable)
	}
	return t, nil
}

func (t *testTable) Schema() *arrow.Schema { return t.schema }

func (t *testTable) Scan(columns []int) (exec.Node, error) {
	fields := make([]arrow.Field, len(columns))
	for i, c := range columns {
		if c < 0 || c >= t.schema.NumFields() {
			return nil, fmt.Errorf("test scan: column %d", c)
		}
		fields[i] = t.schema.Field(c)
	}
	sc := arrow.NewSchema(fields, nil)
	if t.cat.noData {
		v, err := exec.NewValuesExec(sc, nil)
		if err != nil {
			return nil, err
		}
		return &scanExec{ValuesExec: v, table: t.name, columns: columns}, nil
	}
	rows := make([][]any, len(t.rows))
	for r, row := range t.rows {
		rows[r] = make([]any, len(columns))
		for i, c := range columns {
			rows[r][i] = row[c]
		}
	}
	// Three-row batches, so joins and sorts see several input batches.
	bs, err := exectest.Chunk(t.cat.mem, sc, rows, 3, true)
	if err != nil {
		return nil, err
	}
	v, err := exec.NewValuesExec(sc, bs)
	for _, b := range bs {
		b.Release()
	}
	if err != nil {
		return nil, err
	}
	t.cat.vals = append(t.cat.vals, v)
	return &scanExec{ValuesExec: v, table: t.name, columns: columns}, nil
}

// scanExec names the table in EXPLAIN.
type scanExec struct {
	*exec.ValuesExec
	table   string
	columns []int
}

func (s *scanExec) String() string {
	return fmt.Sprintf("TestScan: table=%s columns=%v", s.table, s.columns)
}

// TakeByKey is a test stand-in for the index take: a hash join whose probe
// keeps the driving order, declared as the driving ordering.
func (t *testTable) TakeByKey(driving exec.Node, drivingKey, keyColumn int, columns []int) (exec.Node, bool, error) {
	call := takeCall{table: t.name, drivingKey: drivingKey, key: keyColumn, columns: append([]int(nil), columns...), ok: t.unique[keyColumn]}
	if drivingKey >= 0 && drivingKey < driving.Schema().NumFields() {
		call.drivingKeyType = driving.Schema().Field(drivingKey).Type
	}
	t.cat.takes = append(t.cat.takes, call)
	if !call.ok {
		return nil, false, nil
	}
	scan, err := t.Scan(append(append([]int{}, columns...), keyColumn))
	if err != nil {
		return nil, false, err
	}
	hj, err := exec.NewHashJoinExec(driving, scan, []int{drivingKey}, []int{len(columns)}, exec.JoinLeft)
	if err != nil {
		return nil, false, err
	}
	dw := driving.Schema().NumFields()
	var exprs []physexpr.Expr
	var names []string
	for i := 0; i < dw+len(columns); i++ {
		exprs = append(exprs, physexpr.Col{Index: i, Name: hj.Schema().Field(i).Name})
		names = append(names, hj.Schema().Field(i).Name)
	}
	pr, err := exec.NewProjectExec(hj, exprs, names)
	if err != nil {
		return nil, false, err
	}
	return &takeExec{ProjectExec: pr, driving: driving, key: keyColumn, columns: columns, table: t.name}, true, nil
}

// takeExec shows as one TakeByKeyExec line with the driving side as child,
// and declares the driving ordering.
type takeExec struct {
	*exec.ProjectExec
	driving exec.Node
	table   string
	key     int
	columns []int
}

func (n *takeExec) Name() string { return "TakeByKeyExec" }
func (n *takeExec) String() string {
	return fmt.Sprintf("TakeByKeyExec(test): table=%s key=%d columns=%v", n.table, n.key, n.columns)
}
func (n *takeExec) Properties() exec.Properties {
	return exec.Properties{Ordering: n.driving.Properties().Ordering}
}
func (n *takeExec) Children() []exec.Node { return []exec.Node{n.driving} }

// The standard test table t(id, name, score, _rowid, _rowaddr), unique on
// _rowid (3) and id (0).
var tUser = []arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}

var tRows = [][]any{
	{int64(10), "a", 1.5, uint64(0), uint64(100)},
	{int64(11), "b", nil, uint64(1), uint64(101)},
	{int64(12), nil, 3.5, uint64(2), uint64(4294967296)},
	{nil, "d", 4.0, uint64(5), uint64(4294967297)},
	{int64(14), "e", -1.0, uint64(7), uint64(200)},
	{int64(15), "b", 2.5, uint64(8), uint64(201)},
	{int64(16), "g", 0.0, uint64(9), uint64(202)},
}

func stdCatalog(t testing.TB, mem memory.Allocator) *testCatalog {
	c := newCatalog(t, mem)
	c.add("t", tUser, tRows, 0, 3)
	return c
}

// namedStruct is the Substrait base schema of an Arrow schema (uint64 -> i64).
func namedStruct(sc *arrow.Schema) types.NamedStruct {
	ns := types.NamedStruct{Struct: types.StructType{Nullability: types.NullabilityRequired}}
	for _, f := range sc.Fields() {
		n := types.NullabilityNullable
		if !f.Nullable {
			n = types.NullabilityRequired
		}
		var t types.Type
		switch f.Type.ID() {
		case arrow.INT64, arrow.UINT64:
			t = &types.Int64Type{Nullability: n}
		case arrow.FLOAT64:
			t = &types.Float64Type{Nullability: n}
		case arrow.STRING:
			t = &types.StringType{Nullability: n}
		case arrow.BOOL:
			t = &types.BooleanType{Nullability: n}
		default:
			panic(f.Type)
		}
		ns.Names = append(ns.Names, f.Name)
		ns.Struct.Types = append(ns.Struct.Types, t)
	}
	return ns
}

// sb wraps the substrait-go builder for terse test plans; any builder error
// fails the test.
type sb struct {
	t testing.TB
	b splan.Builder
}

func newSB(t testing.TB) *sb { return &sb{t: t, b: splan.NewBuilderDefault()} }

// must is for builder calls in tests: an error there is a bug in the test.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func (s *sb) scan(c *testCatalog, name string) *splan.NamedTableReadRel {
	return s.b.NamedScan([]string{name}, namedStruct(c.tables[name].schema))
}

func i64(nullable bool) types.Type {
	if nullable {
		return &types.Int64Type{Nullability: types.NullabilityNullable}
	}
	return &types.Int64Type{Nullability: types.NullabilityRequired}
}

// extTable is an extension_table read with a structpb detail.
func (s *sb) extTable(detail map[string]any, names []string, ts []types.Type) *splan.ExtensionTableReadRel {
	st := must(structpb.NewStruct(detail))
	a := must(anypb.New(st))
	return s.b.ExtensionTable(a, types.NamedStruct{Names: names, Struct: types.StructType{Nullability: types.NullabilityRequired, Types: ts}})
}

// unnestParam is UNNEST($k) WITH ORDINALITY AS v(rowid, ord).
func (s *sb) unnestParam(k int) *splan.ExtensionTableReadRel {
	return s.extTable(map[string]any{"relation": "stablerow.unnest", "param": k, "element_type": "i64", "ordinality": true},
		[]string{"rowid", "ord"}, []types.Type{i64(true), i64(false)})
}

func (s *sb) ref(r splan.Rel, i int32) *expr.FieldReference { return must(s.b.RootFieldRef(r, i)) }
func (s *sb) jref(l, r splan.Rel, i int32) *expr.FieldReference {
	return must(s.b.JoinedRecordFieldRef(l, r, i))
}

func (s *sb) fn(urn, name string, args ...types.FuncArg) *expr.ScalarFunction {
	return must(s.b.ScalarFn(urn, name, nil, args...))
}

func lit[T interface {
	bool | int64 | float64 | string
}](v T) expr.Literal {
	return expr.NewPrimitiveLiteral(v, false)
}

func (s *sb) plan(root splan.Rel, names ...string) *substraitpb.Plan {
	p := must(s.b.Plan(root, names))
	return must(p.ToProto())
}

// run builds and executes pb, returning the rows and the EXPLAIN text.
func run(t testing.TB, mem memory.Allocator, cat plan.Catalog, pb *substraitpb.Plan, opt plan.Options, params map[int]any, batch int) ([][]any, string, error) {
	t.Helper()
	ctx := context.Background()
	node, err := plan.Build(ctx, pb, cat, opt)
	if err != nil {
		return nil, "", err
	}
	explain := exec.Explain(node, false)
	s, err := node.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: batch, Params: params})
	if err != nil {
		return nil, explain, err
	}
	out, err := exec.Collect(ctx, s)
	if err != nil {
		return nil, explain, err
	}
	defer func() {
		for _, b := range out {
			b.Release()
		}
	}()
	for _, b := range out {
		if !b.Schema().Equal(node.Schema()) {
			return nil, explain, fmt.Errorf("batch schema %s != node schema %s", b.Schema(), node.Schema())
		}
	}
	rows, err := exectest.Rows(out...)
	return rows, explain, err
}

func fieldNames(t testing.TB, cat plan.Catalog, pb *substraitpb.Plan) []string {
	node := must(plan.Build(context.Background(), pb, cat, plan.Options{}))
	var names []string
	for _, f := range node.Schema().Fields() {
		names = append(names, f.Name)
	}
	return names
}

func equalRows(t testing.TB, got, want [][]any) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rows mismatch\n got: %v\nwant: %v", got, want)
	}
}

func isErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want %v", err, target)
	}
}
