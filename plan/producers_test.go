package plan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/internal/fuzzseed"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/plan/ingest"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Outside producers' plans (testdata/producers/<producer>/*.json): each
// fixture is written by hand in the shape that producer emits, as its
// public documentation and issue threads show it (not copied from its
// files):
//
//   - duckdb: the DuckDB substrait extension before URNs: functions
//     declared without any extension reference ("lte", "count_star"),
//     varchar columns, filters pushed into the read with a projection
//     mask that keeps a singular struct, count-only fetches, no RelCommon
//     on most relations.
//   - isthmus: substrait-java's SQL to Substrait: extension URIs
//     ("/functions_comparison.yaml"), compound names ("equal:any_any"),
//     function anchor 0 (left out of the JSON), upper-case table and
//     column names, fixedChar literals, RelCommon everywhere.
//   - datafusion: DataFusion's producer: declarations referencing the
//     URI anchor u32::MAX that no plan declares, projection masks on reads,
//     count_expr fetches, post-join filters, the new grouping form.
//
// Every fixture of a relation the engine plans runs and must return the
// rows computed here in Go straight from the table data (producerWant);
// the others must fail with ErrUnsupported naming what is missing.

// order is one row of the orders table.
type order struct {
	key, cust int64
	price     float64
	status    string
	comment   any // string or nil
}

var orders = []order{
	{1, 10, 100.5, "O", "fast"},
	{2, 20, 250.0, "F", nil},
	{3, 10, 75.25, "O", "slow"},
	{4, 30, 310.0, "P", "fast"},
	{5, 20, 42.0, "F", "late"},
	{6, 40, 180.0, "O", nil},
	{7, 10, 99.0, "F", "fast"},
}

type customer struct {
	key    int64
	name   string
	nation int64
}

var customers = []customer{{10, "alice", 1}, {20, "bob", 2}, {30, "carol", 1}, {50, "dave", 3}}

// producerCatalog holds orders and customer (lower-case names, as the
// SQL front end creates them), plus _rowid and _rowaddr.
func producerCatalog(t testing.TB) *testCatalog {
	c := newCatalog(t, exectest.Mem(t))
	var orows, crows [][]any
	for i, o := range orders {
		orows = append(orows, []any{o.key, o.cust, o.price, o.status, o.comment, uint64(i), uint64(i)})
	}
	for i, cu := range customers {
		crows = append(crows, []any{cu.key, cu.name, cu.nation, uint64(i), uint64(i)})
	}
	c.add("orders", []arrow.Field{
		{Name: "o_orderkey", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "o_custkey", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "o_totalprice", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "o_orderstatus", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "o_comment", Type: arrow.BinaryTypes.String, Nullable: true},
	}, orows)
	c.add("customer", []arrow.Field{
		{Name: "c_custkey", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "c_name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "c_nationkey", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, crows)
	return c
}

// customerName is the name of customer key, or nil.
func customerName(key int64) any {
	for _, c := range customers {
		if c.key == key {
			return c.name
		}
	}
	return nil
}

// sortedOrders is orders sorted by less (stable).
func sortedOrders(less func(a, b order) bool) []order {
	s := append([]order(nil), orders...)
	sort.SliceStable(s, func(i, j int) bool { return less(s[i], s[j]) })
	return s
}

// producerCase is what a fixture must do: return want's rows (in order
// when ordered), or fail with ErrUnsupported mentioning unsupported.
type producerCase struct {
	want        func() [][]any
	ordered     bool
	unsupported string
}

// ordersPerCustomer is o_custkey, count(*) ... GROUP BY o_custkey, groups in
// first-seen order (the fixtures compare it unordered).
func ordersPerCustomer() (out [][]any) {
	counts, keys := map[int64]int64{}, []int64{}
	for _, o := range orders {
		if _, ok := counts[o.cust]; !ok {
			keys = append(keys, o.cust)
		}
		counts[o.cust]++
	}
	for _, k := range keys {
		out = append(out, []any{k, counts[k]})
	}
	return out
}

// producerWant: the expected outcome of each fixture, the rows computed
// from orders and customers as the fixture's SQL says.
var producerWant = map[string]producerCase{
	// SELECT o_orderkey, o_totalprice FROM orders WHERE o_comment IS NOT NULL AND o_totalprice > 100
	"duckdb/filter_project": {want: func() (out [][]any) {
		for _, o := range orders {
			if o.comment != nil && o.price > 100 {
				out = append(out, []any{o.key, o.price})
			}
		}
		return out
	}},
	// SELECT o_orderkey FROM orders ORDER BY o_totalprice DESC LIMIT 3
	"duckdb/sort_fetch": {ordered: true, want: func() (out [][]any) {
		for _, o := range sortedOrders(func(a, b order) bool { return a.price > b.price })[:3] {
			out = append(out, []any{o.key})
		}
		return out
	}},
	// SELECT c_name, o_orderkey FROM orders JOIN customer ON o_custkey = c_custkey
	"duckdb/join": {want: func() (out [][]any) {
		for _, o := range orders {
			if n := customerName(o.cust); n != nil {
				out = append(out, []any{n, o.key})
			}
		}
		return out
	}},
	// SELECT count(*) FROM orders WHERE o_orderstatus = 'O'
	"duckdb/aggregate_count": {want: func() [][]any {
		n := int64(0)
		for _, o := range orders {
			if o.status == "O" {
				n++
			}
		}
		return [][]any{{n}}
	}},
	// SELECT o_custkey, count(*) FROM orders GROUP BY o_custkey
	"duckdb/aggregate_groupby": {want: ordersPerCustomer},
	// SELECT o_orderkey FROM orders WHERE o_orderkey < 3 UNION ALL SELECT c_custkey FROM customer
	"duckdb/set": {want: func() (out [][]any) {
		for _, o := range orders {
			if o.key < 3 {
				out = append(out, []any{o.key})
			}
		}
		for _, c := range customers {
			out = append(out, []any{c.key})
		}
		return out
	}},

	// SELECT O_ORDERKEY, O_TOTALPRICE * 2 FROM ORDERS WHERE O_ORDERSTATUS = 'F'
	"isthmus/filter_project": {want: func() (out [][]any) {
		for _, o := range orders {
			if o.status == "F" {
				out = append(out, []any{o.key, o.price * 2})
			}
		}
		return out
	}},
	// SELECT O_ORDERKEY, O_CUSTKEY FROM ORDERS ORDER BY O_CUSTKEY, O_ORDERKEY DESC LIMIT 4 OFFSET 1
	"isthmus/sort_fetch": {ordered: true, want: func() (out [][]any) {
		s := sortedOrders(func(a, b order) bool { return a.cust < b.cust || a.cust == b.cust && a.key > b.key })
		for _, o := range s[1:5] {
			out = append(out, []any{o.key, o.cust})
		}
		return out
	}},
	// SELECT C_NAME, O_ORDERKEY FROM ORDERS LEFT JOIN CUSTOMER ON O_CUSTKEY = C_CUSTKEY
	"isthmus/join": {want: func() (out [][]any) {
		for _, o := range orders {
			out = append(out, []any{customerName(o.cust), o.key})
		}
		return out
	}},
	// SELECT COUNT(*) FROM ORDERS
	"isthmus/aggregate_count": {want: func() [][]any { return [][]any{{int64(len(orders))}} }},
	// SELECT O_ORDERSTATUS, COUNT(*) FROM ORDERS GROUP BY O_ORDERSTATUS
	"isthmus/aggregate_groupby": {want: func() (out [][]any) {
		counts, keys := map[string]int64{}, []string{}
		for _, o := range orders {
			if _, ok := counts[o.status]; !ok {
				keys = append(keys, o.status)
			}
			counts[o.status]++
		}
		for _, k := range keys {
			out = append(out, []any{k, counts[k]})
		}
		return out
	}},
	// SELECT O_CUSTKEY FROM ORDERS EXCEPT SELECT C_CUSTKEY FROM CUSTOMER
	// (SET_OP_MINUS_PRIMARY is EXCEPT DISTINCT; EXCEPT ALL is
	// SET_OP_MINUS_PRIMARY_ALL)
	"isthmus/set": {want: func() (out [][]any) {
		seen := map[int64]bool{}
		for _, c := range customers {
			seen[c.key] = true
		}
		for _, o := range orders {
			if !seen[o.cust] {
				seen[o.cust] = true
				out = append(out, []any{o.cust})
			}
		}
		return out
	}},

	// SELECT o_orderkey FROM orders WHERE o_custkey = 10 AND o_totalprice >= 99
	"datafusion/filter_project": {want: func() (out [][]any) {
		for _, o := range orders {
			if o.cust == 10 && o.price >= 99 {
				out = append(out, []any{o.key})
			}
		}
		return out
	}},
	// SELECT o_orderkey FROM orders ORDER BY o_orderkey DESC LIMIT 2
	"datafusion/sort_fetch": {ordered: true, want: func() (out [][]any) {
		for _, o := range sortedOrders(func(a, b order) bool { return a.key > b.key })[:2] {
			out = append(out, []any{o.key})
		}
		return out
	}},
	// SELECT c_name, o_orderkey FROM customer JOIN orders ON c_custkey = o_custkey AND o_orderkey > 2
	"datafusion/join": {want: func() (out [][]any) {
		for _, o := range orders {
			if n := customerName(o.cust); n != nil && o.key > 2 {
				out = append(out, []any{n, o.key})
			}
		}
		return out
	}},
	// SELECT count(o_comment) FROM orders
	"datafusion/aggregate_count": {want: func() [][]any {
		n := int64(0)
		for _, o := range orders {
			if o.comment != nil {
				n++
			}
		}
		return [][]any{{n}}
	}},
	// SELECT o_custkey, count(*) FROM orders GROUP BY o_custkey
	"datafusion/aggregate_groupby": {want: ordersPerCustomer},
	// SELECT o_custkey FROM orders UNION SELECT c_custkey FROM customer
	"datafusion/set": {want: func() (out [][]any) {
		seen := map[int64]bool{}
		add := func(k int64) {
			if !seen[k] {
				seen[k] = true
				out = append(out, []any{k})
			}
		}
		for _, o := range orders {
			add(o.cust)
		}
		for _, c := range customers {
			add(c.key)
		}
		return out
	}},
	// SELECT o_orderkey, row_number() OVER (ORDER BY o_orderkey) FROM orders
	// (the window function in a projection, window.go; the keys are 1..7
	// in order, so each row's number is its key)
	"datafusion/window": {want: func() (out [][]any) {
		for _, o := range orders {
			out = append(out, []any{o.key, o.key})
		}
		return out
	}},
}

// producerFixtures returns the fixtures by name ("duckdb/join").
func producerFixtures(t testing.TB) map[string][]byte {
	files, err := filepath.Glob(filepath.Join("testdata", "producers", "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no producer fixtures: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(filepath.Dir(f)) + "/" + strings.TrimSuffix(filepath.Base(f), ".json")
		out[name] = b
	}
	return out
}

// TestProducerFixtures runs every fixture, as JSON and as binary
// protobuf (legacyBinary: the removed URI fields as the unknown fields an
// old producer's binary plan carries), and checks its rows or its error.
func TestProducerFixtures(t *testing.T) {
	fixtures := producerFixtures(t)
	want := map[string]producerCase{}
	for _, m := range []map[string]producerCase{producerWant, subqueryWant} {
		for name, tc := range m {
			want[name] = tc
		}
	}
	for name := range want {
		if _, ok := fixtures[name]; !ok {
			t.Errorf("fixture %s is missing", name)
		}
	}
	for name, js := range fixtures {
		tc, ok := want[name]
		if !ok {
			t.Errorf("fixture %s has no expectation", name)
			continue
		}
		for form, data := range map[string][]byte{"json": js, "binary": legacyBinary(t, js)} {
			t.Run(name+"/"+form, func(t *testing.T) {
				mem := exectest.Mem(t)
				c := producerCatalog(t)
				c.mem = mem
				pb, err := plan.DecodePlan(data)
				if err != nil {
					t.Fatal(err)
				}
				rows, explain, err := run(t, mem, c, pb, plan.Options{}, nil, 3)
				if tc.unsupported != "" {
					if !errors.Is(err, plan.ErrUnsupported) || !strings.Contains(err.Error(), tc.unsupported) {
						t.Fatalf("error %v, want ErrUnsupported naming %s", err, tc.unsupported)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want := tc.want()
				if !tc.ordered {
					sortAny(rows)
					sortAny(want)
				}
				if fmt.Sprint(rows) != fmt.Sprint(want) {
					t.Fatalf("rows %v\nwant %v\n%s", rows, want, explain)
				}
			})
		}
	}
}

// sortAny orders rows by their printed form (for unordered results).
func sortAny(rows [][]any) {
	sort.Slice(rows, func(i, j int) bool { return fmt.Sprint(rows[i]) < fmt.Sprint(rows[j]) })
}

// legacyBinary encodes a JSON plan as binary protobuf the way a producer
// from before the URN change wrote it: extension_uris as Plan field 1 and
// each declaration's extension_uri_reference as field 1 of its function,
// fields the current protos no longer have. The encoding is done here
// with protowire, independently of the loader's migration.
func legacyBinary(t testing.TB, js []byte) []byte {
	var top map[string]any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		t.Fatal(err)
	}
	num := func(v any) uint64 {
		n, err := strconv.ParseUint(fmt.Sprint(v), 10, 32)
		if err != nil && v != nil {
			t.Fatalf("%v: %v", v, err)
		}
		return n
	}
	uris, _ := top["extensionUris"].([]any)
	delete(top, "extensionUris")
	var refs []any
	exts, _ := top["extensions"].([]any)
	for _, e := range exts {
		f := e.(map[string]any)["extensionFunction"].(map[string]any)
		refs = append(refs, f["extensionUriReference"])
		delete(f, "extensionUriReference")
	}
	rest, err := json.Marshal(top)
	if err != nil {
		t.Fatal(err)
	}
	var pb substraitpb.Plan
	if err := protojson.Unmarshal(rest, &pb); err != nil {
		t.Fatal(err)
	}
	decls := pb.Extensions
	pb.Extensions = nil
	out, err := proto.Marshal(&pb)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range uris {
		m := u.(map[string]any)
		var b []byte
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, num(m["extensionUriAnchor"]))
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendString(b, m["uri"].(string))
		out = protowire.AppendTag(out, 1, protowire.BytesType)
		out = protowire.AppendBytes(out, b)
	}
	for i, d := range decls {
		inner, err := proto.Marshal(d.GetExtensionFunction())
		if err != nil {
			t.Fatal(err)
		}
		if refs[i] != nil {
			inner = append(protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), num(refs[i])), inner...)
		}
		decl := protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), inner)
		out = protowire.AppendTag(out, 2, protowire.BytesType)
		out = protowire.AppendBytes(out, decl)
	}
	return out
}

// TestURIMigration: URIs map to URNs as the spec's migration says, for
// JSON and binary alike; each declaration ends up referencing the URN of
// its URI.
func TestURIMigration(t *testing.T) {
	js := []byte(`{
	  "extensionUris": [
	    {"extensionUriAnchor": 1, "uri": "/functions_comparison.yaml"},
	    {"extensionUriAnchor": 2, "uri": "https://github.com/substrait-io/substrait/blob/main/extensions/functions_arithmetic.yaml"},
	    {"extensionUriAnchor": 3, "uri": "https://example.com/ext/my_funcs.yaml"},
	    {"extensionUriAnchor": 4, "uri": "functions_boolean.yaml"}
	  ],
	  "extensionUrns": [{"extensionUrnAnchor": 7, "urn": "extension:io.substrait:functions_string"}],
	  "extensions": [
	    {"extensionFunction": {"extensionUriReference": 1, "functionAnchor": 1, "name": "equal:any_any"}},
	    {"extensionFunction": {"extensionUriReference": 2, "functionAnchor": 2, "name": "add:i64_i64"}},
	    {"extensionFunction": {"extensionUriReference": 3, "functionAnchor": 3, "name": "my_fn"}},
	    {"extensionFunction": {"extensionUriReference": 4, "functionAnchor": 4, "name": "and:bool"}},
	    {"extensionFunction": {"extensionUriReference": 1, "extensionUrnReference": 7, "functionAnchor": 5, "name": "like"}},
	    {"extensionFunction": {"extensionUriReference": 4294967295, "functionAnchor": 6, "name": "or"}}
	  ]
	}`)
	want := []string{
		"extension:io.substrait:functions_comparison",
		"extension:io.substrait:functions_arithmetic",
		"extension:example.com:my_funcs",
		"extension:io.substrait:functions_boolean",
		"extension:io.substrait:functions_string", // its URN reference wins
		"extension:unknown:undeclared",            // DataFusion's u32::MAX
	}
	for form, data := range map[string][]byte{"json": js, "binary": legacyBinary(t, js)} {
		pb, err := plan.DecodePlan(data)
		if err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		urns := map[uint32]string{}
		for _, u := range pb.GetExtensionUrns() {
			urns[u.GetExtensionUrnAnchor()] = u.GetUrn()
		}
		for i, d := range pb.GetExtensions() {
			f := d.GetExtensionFunction()
			if got := urns[f.GetExtensionUrnReference()]; got != want[i] {
				t.Errorf("%s: %s: URN %q, want %q", form, f.GetName(), got, want[i])
			}
		}
		if len(pb.ProtoReflect().GetUnknown()) != 0 {
			t.Errorf("%s: unknown fields left", form)
		}
	}
	if got := ingest.URNOfURI("https://github.com/substrait-io/substrait/blob/v0.18.0/extensions/functions_aggregate_generic.yaml"); got != "extension:io.substrait:functions_aggregate_generic" {
		t.Errorf("versioned URI: %s", got)
	}
}

// TestFunctionNames: each spelling producers use for a function the
// engine implements plans as that function; an unmapped one is named in
// the error.
func TestFunctionNames(t *testing.T) {
	mem := exectest.Mem(t)
	c := producerCatalog(t)
	c.mem = mem
	// SELECT o_orderkey FROM orders WHERE <name>(o_custkey, 20)
	query := func(name string) []byte {
		return []byte(`{"extensions": [{"extensionFunction": {"functionAnchor": 1, "name": "` + name + `"}}],
		  "relations": [{"root": {"names": ["o_orderkey"], "input": {"project": {"common": {"emit": {"outputMapping": [2]}},
		    "input": {"filter": {"input": {"read": {"namedTable": {"names": ["orders"]}, "baseSchema": {"names": ["o_orderkey", "o_custkey"],
		      "struct": {"types": [{"i64": {}}, {"i64": {}}]}}}},
		      "condition": {"scalarFunction": {"functionReference": 1, "outputType": {"bool": {}}, "arguments": [
		        {"value": {"selection": {"directReference": {"structField": {"field": 1}}, "rootReference": {}}}},
		        {"value": {"literal": {"i64": "20"}}}]}}}},
		    "expressions": [{"selection": {"directReference": {"structField": {}}, "rootReference": {}}}]}}}}]}`)
	}
	keysWhere := func(keep func(cust int64) bool) (out [][]any) {
		for _, o := range orders {
			if keep(o.cust) {
				out = append(out, []any{o.key})
			}
		}
		return out
	}
	for names, keep := range map[string]func(int64) bool{
		"equal equal:any_any equal:i64_i64 eq EQUAL":             func(c int64) bool { return c == 20 },
		"not_equal not_equal:any_any notequal neq":               func(c int64) bool { return c != 20 },
		"lt lt:any_any lessthan less_than":                       func(c int64) bool { return c < 20 },
		"lte lte:i64_i64 lessthanequal le":                       func(c int64) bool { return c <= 20 },
		"gt gt:any_any greaterthan Greater_Than":                 func(c int64) bool { return c > 20 },
		"gte gte:any_any greaterthanequal greater_than_or_equal": func(c int64) bool { return c >= 20 },
	} {
		for _, name := range strings.Fields(names) {
			rows, _, err := run(t, mem, c, mustDecode(t, query(name)), plan.Options{}, nil, 4)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if want := keysWhere(keep); fmt.Sprint(rows) != fmt.Sprint(want) {
				t.Fatalf("%s: rows %v, want %v", name, rows, want)
			}
		}
	}
	_, err := plan.Build(context.Background(), mustDecode(t, query("levenshtein:string_string")), c, plan.Options{})
	if !errors.Is(err, plan.ErrUnsupported) || !strings.Contains(err.Error(), "levenshtein") {
		t.Fatalf("unmapped function: %v", err)
	}
}

func mustDecode(t testing.TB, data []byte) *substraitpb.Plan {
	t.Helper()
	pb, err := plan.DecodePlan(data)
	if err != nil {
		t.Fatal(err)
	}
	return pb
}

// TestCaseFolding: names resolve case-insensitively only where that is
// unambiguous.
func TestCaseFolding(t *testing.T) {
	mem := exectest.Mem(t)
	c := producerCatalog(t)
	c.mem = mem
	read := func(table, col string) []byte {
		return []byte(`{"relations": [{"root": {"names": ["x"], "input": {"read": {"namedTable": {"names": ["` + table + `"]},
		  "baseSchema": {"names": ["` + col + `"], "struct": {"types": [{"i64": {}}]}}}}}}]}`)
	}
	for _, tc := range [][2]string{{"ORDERS", "O_ORDERKEY"}, {"orders", "O_OrderKey"}, {"Orders", "o_orderkey"}} {
		if _, _, err := run(t, mem, c, mustDecode(t, read(tc[0], tc[1])), plan.Options{}, nil, 4); err != nil {
			t.Fatalf("%v: %v", tc, err)
		}
	}
	// Two tables that fold to the same name: only the exact one resolves.
	c.add("ORDERS", []arrow.Field{{Name: "o_orderkey", Type: arrow.PrimitiveTypes.Int64}, {Name: "O_ORDERKEY", Type: arrow.PrimitiveTypes.Int64}}, nil)
	if _, err := plan.Build(context.Background(), mustDecode(t, read("Orders", "o_orderkey")), c, plan.Options{}); !errors.Is(err, plan.ErrInvalidPlan) || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("ambiguous table: %v", err)
	}
	if _, err := plan.Build(context.Background(), mustDecode(t, read("ORDERS", "O_OrderKey")), c, plan.Options{}); !errors.Is(err, plan.ErrInvalidPlan) || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("ambiguous column: %v", err)
	}
	if _, err := plan.Build(context.Background(), mustDecode(t, read("ORDERS", "O_ORDERKEY")), c, plan.Options{}); err != nil {
		t.Fatalf("exact names: %v", err)
	}
}

// producerSeeds are the fixtures, JSON and binary, for the fuzz targets.
func producerSeeds(t testing.TB) [][]byte {
	var out [][]byte
	names := make([]string, 0)
	fixtures := producerFixtures(t)
	for n := range fixtures {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, fixtures[n], legacyBinary(t, fixtures[n]))
	}
	return out
}

// TestFuzzProducerCorpus regenerates testdata/fuzz/FuzzURIMigration and
// FuzzPlanLoad from the fixtures (STABLEROW_WRITE_CORPUS=1).
func TestFuzzProducerCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	seeds := producerSeeds(t)
	fuzzseed.Write(t, "FuzzURIMigration", seeds)
	fuzzseed.Write(t, "FuzzPlanLoad", seeds)
}

// FuzzURIMigration: whatever bytes DecodePlan accepts come out migrated:
// every declaration references a declared URN of the form substrait-go
// accepts, and no removed URI field is left.
func FuzzURIMigration(f *testing.F) {
	for _, s := range producerSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pb, err := plan.DecodePlan(data)
		if err != nil {
			if !errors.Is(err, plan.ErrInvalidPlan) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		urns := map[uint32]bool{}
		for _, u := range pb.GetExtensionUrns() {
			urns[u.GetExtensionUrnAnchor()] = true
			parts := strings.Split(u.GetUrn(), ":")
			if len(parts) != 3 || parts[0] != "extension" || parts[1] == "" || parts[2] == "" {
				t.Fatalf("URN %q", u.GetUrn())
			}
		}
		for i, d := range pb.GetExtensions() {
			var ref uint32
			switch {
			case d.GetExtensionFunction() != nil:
				ref = d.GetExtensionFunction().GetExtensionUrnReference()
			case d.GetExtensionType() != nil:
				ref = d.GetExtensionType().GetExtensionUrnReference()
			case d.GetExtensionTypeVariation() != nil:
				ref = d.GetExtensionTypeVariation().GetExtensionUrnReference()
			default:
				continue
			}
			if !urns[ref] {
				t.Fatalf("extensions[%d] references undeclared URN anchor %d", i, ref)
			}
		}
		raw := pb.ProtoReflect().GetUnknown()
		for len(raw) > 0 {
			n, typ, k := protowire.ConsumeTag(raw)
			if k < 0 {
				break
			}
			if n == 1 && typ == protowire.BytesType {
				t.Fatal("extension_uris left in the plan")
			}
			m := protowire.ConsumeFieldValue(n, typ, raw[k:])
			if m < 0 {
				break
			}
			raw = raw[k+m:]
		}
	})
}

// FuzzPlanLoad: any bytes load (DecodePlan, then Build against the
// producers' tables) into a plan or a typed error; never a panic, never
// an internal error (a recovered panic in substrait-go's decoder
// included).
func FuzzPlanLoad(f *testing.F) {
	for _, s := range producerSeeds(f) {
		f.Add(s)
	}
	c := producerCatalog(f)
	c.noData = true
	f.Fuzz(func(t *testing.T, data []byte) {
		pb, err := plan.DecodePlan(data)
		if err != nil {
			return
		}
		n, err := plan.Build(context.Background(), pb, c, plan.Options{})
		if err != nil {
			if errors.Is(err, errkind.Internal) || errkind.Of(err) == nil {
				t.Fatalf("%v", err)
			}
			return
		}
		_ = exec.Explain(n, false)
	})
}
