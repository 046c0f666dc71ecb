package plan_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// Expected outcomes of the subquery fixtures (testdata/producers/*/
// subquery_*.json), computed here in Go from orders and customers as
// the fixture's SQL says, with PostgreSQL's NULL rules: x NOT IN (S) is
// never true when x is NULL or S holds a NULL (and S is not empty), and
// a scalar subquery over no rows is NULL (count's is 0).
var subqueryWant = map[string]producerCase{
	// SELECT C_NAME FROM CUSTOMER WHERE C_CUSTKEY IN (SELECT O_CUSTKEY FROM ORDERS WHERE O_ORDERSTATUS = 'F')
	"isthmus/subquery_in": {want: func() (out [][]any) {
		for _, c := range customers {
			if anyOrder(func(o order) bool { return o.status == "F" && o.cust == c.key }) {
				out = append(out, []any{c.name})
			}
		}
		return out
	}},
	// SELECT C_NAME FROM CUSTOMER WHERE C_CUSTKEY NOT IN (SELECT O_CUSTKEY FROM ORDERS)
	// (o_custkey has no NULL)
	"isthmus/subquery_not_in": {want: func() (out [][]any) {
		for _, c := range customers {
			if !anyOrder(func(o order) bool { return o.cust == c.key }) {
				out = append(out, []any{c.name})
			}
		}
		return out
	}},
	// SELECT C_NAME FROM CUSTOMER WHERE EXISTS (SELECT * FROM ORDERS WHERE O_CUSTKEY = C_CUSTKEY AND O_TOTALPRICE > 200)
	"isthmus/subquery_exists": {want: func() (out [][]any) {
		for _, c := range customers {
			if anyOrder(func(o order) bool { return o.cust == c.key && o.price > 200 }) {
				out = append(out, []any{c.name})
			}
		}
		return out
	}},
	// SELECT O_ORDERKEY FROM ORDERS WHERE NOT EXISTS (SELECT * FROM CUSTOMER WHERE C_CUSTKEY = O_CUSTKEY)
	"isthmus/subquery_not_exists": {want: func() (out [][]any) {
		for _, o := range orders {
			if customerName(o.cust) == nil {
				out = append(out, []any{o.key})
			}
		}
		return out
	}},
	// TPC-H Q17's shape: SELECT O_ORDERKEY FROM ORDERS WHERE O_TOTALPRICE <
	//   (SELECT 0.9 * AVG(O2.O_TOTALPRICE) FROM ORDERS O2 WHERE O2.O_CUSTKEY = ORDERS.O_CUSTKEY)
	"isthmus/subquery_scalar_correlated": {want: func() (out [][]any) {
		for _, o := range orders {
			if avg, ok := avgPrice(func(p order) bool { return p.cust == o.cust }); ok && o.price < 0.9*avg {
				out = append(out, []any{o.key})
			}
		}
		return out
	}},
	// SELECT O_ORDERKEY FROM ORDERS WHERE O_TOTALPRICE > (SELECT AVG(O_TOTALPRICE) FROM ORDERS)
	"isthmus/subquery_scalar": {want: func() (out [][]any) {
		avg, _ := avgPrice(func(order) bool { return true })
		for _, o := range orders {
			if o.price > avg {
				out = append(out, []any{o.key})
			}
		}
		return out
	}},
	// SELECT O_ORDERKEY FROM ORDERS WHERE O_TOTALPRICE > ALL (SELECT O_TOTALPRICE FROM ORDERS WHERE O_CUSTKEY = 10)
	"isthmus/subquery_all": {want: func() (out [][]any) {
		for _, o := range orders {
			if !anyOrder(func(p order) bool { return p.cust == 10 && !(o.price > p.price) }) {
				out = append(out, []any{o.key})
			}
		}
		return out
	}},
	// SELECT C_NAME, (SELECT COUNT(*) FROM ORDERS WHERE O_CUSTKEY = C_CUSTKEY) FROM CUSTOMER
	"isthmus/subquery_project_count": {want: func() (out [][]any) {
		for _, c := range customers {
			n := int64(0)
			for _, o := range orders {
				if o.cust == c.key {
					n++
				}
			}
			out = append(out, []any{c.name, n})
		}
		return out
	}},

	// SELECT c_name FROM customer WHERE c_name NOT IN (SELECT o_comment FROM orders):
	// o_comment holds NULLs, so no name is NOT IN it (engine's
	// TestProducerFixturesRun also checks that it returns no rows).
	"duckdb/subquery_not_in_null": {want: func() (out [][]any) {
		for _, c := range customers {
			if notIn(c.name, func(yield func(any) bool) {
				for _, o := range orders {
					if !yield(o.comment) {
						return
					}
				}
			}) {
				out = append(out, []any{c.name})
			}
		}
		return out
	}},
	// SELECT o_orderkey FROM orders WHERE o_comment NOT IN (SELECT c_name FROM customer):
	// a NULL o_comment is never NOT IN a non-empty set.
	"duckdb/subquery_not_in": {want: func() (out [][]any) {
		for _, o := range orders {
			if notIn(o.comment, func(yield func(any) bool) {
				for _, c := range customers {
					if !yield(c.name) {
						return
					}
				}
			}) {
				out = append(out, []any{o.key})
			}
		}
		return out
	}},
	// SELECT c_name FROM customer WHERE c_name NOT IN (SELECT o_comment FROM orders WHERE o_custkey = c_custkey)
	// (a customer's own orders: NULL comments drop the name, no orders keep it)
	"duckdb/subquery_not_in_correlated": {want: func() (out [][]any) {
		for _, c := range customers {
			if notIn(c.name, func(yield func(any) bool) {
				for _, o := range orders {
					if o.cust == c.key && !yield(o.comment) {
						return
					}
				}
			}) {
				out = append(out, []any{c.name})
			}
		}
		return out
	}},
	// SELECT o_orderkey FROM orders WHERE o_custkey IN (SELECT c_custkey FROM customer WHERE c_nationkey = 1)
	"duckdb/subquery_in": {want: func() (out [][]any) {
		for _, o := range orders {
			for _, c := range customers {
				if c.nation == 1 && c.key == o.cust {
					out = append(out, []any{o.key})
					break
				}
			}
		}
		return out
	}},
	// TPC-H Q21's shape: SELECT o_orderkey FROM orders o1 WHERE EXISTS
	//   (SELECT * FROM orders o2 WHERE o2.o_custkey = o1.o_custkey AND o2.o_orderkey <> o1.o_orderkey)
	"duckdb/subquery_exists": {want: func() (out [][]any) {
		for _, o := range orders {
			if anyOrder(func(p order) bool { return p.cust == o.cust && p.key != o.key }) {
				out = append(out, []any{o.key})
			}
		}
		return out
	}},
	// SELECT c_name, (SELECT max(o_totalprice) FROM orders WHERE o_custkey = c_custkey) FROM customer
	"duckdb/subquery_project_max": {want: func() (out [][]any) {
		for _, c := range customers {
			var m any
			for _, o := range orders {
				if o.cust == c.key && (m == nil || o.price > m.(float64)) {
					m = o.price
				}
			}
			out = append(out, []any{c.name, m})
		}
		return out
	}},
	// SELECT c_custkey IN (SELECT o_custkey FROM orders) FROM customer: IN as a value, a mark join
	// (o_custkey is never NULL here: true or false).
	"duckdb/subquery_mark": {want: func() (out [][]any) {
		for _, c := range customers {
			out = append(out, []any{anyOrder(func(o order) bool { return o.cust == c.key })})
		}
		return out
	}},

	// TPC-H Q20's shape: SELECT C_NAME FROM CUSTOMER WHERE C_CUSTKEY IN (SELECT O_CUSTKEY FROM ORDERS
	//   WHERE O_TOTALPRICE > (SELECT 0.5 * AVG(O2.O_TOTALPRICE) FROM ORDERS O2 WHERE O2.O_CUSTKEY = ORDERS.O_CUSTKEY))
	"isthmus/subquery_nested": {want: func() (out [][]any) {
		for _, c := range customers {
			if anyOrder(func(o order) bool {
				avg, ok := avgPrice(func(p order) bool { return p.cust == o.cust })
				return o.cust == c.key && ok && o.price > 0.5*avg
			}) {
				out = append(out, []any{c.name})
			}
		}
		return out
	}},
	// SELECT C_NAME FROM CUSTOMER WHERE EXISTS (SELECT * FROM ORDERS WHERE O_CUSTKEY = C_CUSTKEY
	//   AND O_TOTALPRICE > (SELECT AVG(O_TOTALPRICE) FROM ORDERS))
	"isthmus/subquery_exists_scalar": {want: func() (out [][]any) {
		avg, _ := avgPrice(func(order) bool { return true })
		for _, c := range customers {
			if anyOrder(func(o order) bool { return o.cust == c.key && o.price > avg }) {
				out = append(out, []any{c.name})
			}
		}
		return out
	}},
	// SELECT o_orderkey FROM orders WHERE o_totalprice < ANY (SELECT o_totalprice FROM orders WHERE o_orderstatus = 'F')
	"duckdb/subquery_any": {want: func() (out [][]any) {
		for _, o := range orders {
			if anyOrder(func(p order) bool { return p.status == "F" && o.price < p.price }) {
				out = append(out, []any{o.key})
			}
		}
		return out
	}},
	// SELECT O_ORDERKEY FROM ORDERS WHERE NOT (O_TOTALPRICE * 1 >= ALL (SELECT CAST(C_NATIONKEY * 100 AS DOUBLE) FROM CUSTOMER))
	"isthmus/subquery_not_all": {want: func() (out [][]any) {
		for _, o := range orders {
			for _, c := range customers {
				if o.price < float64(c.nation*100) {
					out = append(out, []any{o.key})
					break
				}
			}
		}
		return out
	}},
	// SELECT O_ORDERKEY, (SELECT C_NAME FROM CUSTOMER WHERE C_CUSTKEY = ORDERS.O_CUSTKEY) FROM ORDERS
	// (an error when a key has two customers: lookupErr)
	"isthmus/subquery_scalar_lookup": {want: func() (out [][]any) {
		for _, o := range orders {
			out = append(out, []any{o.key, customerName(o.cust)})
		}
		return out
	}},
	// TPC-H Q2's shape: SELECT C_NAME FROM CUSTOMER WHERE C_NATIONKEY = (SELECT MIN(C2.C_NATIONKEY)
	//   FROM ORDERS, CUSTOMER C2 WHERE O_CUSTKEY = C2.C_CUSTKEY AND O_CUSTKEY = CUSTOMER.C_CUSTKEY)
	"isthmus/subquery_scalar_cross": {want: func() (out [][]any) {
		for _, c := range customers {
			var m any
			for _, o := range orders {
				for _, c2 := range customers {
					if o.cust == c2.key && o.cust == c.key && (m == nil || c2.nation < m.(int64)) {
						m = c2.nation
					}
				}
			}
			if m != nil && m.(int64) == c.nation {
				out = append(out, []any{c.name})
			}
		}
		return out
	}},
	// SELECT c_name, (SELECT max(o_totalprice) FROM orders WHERE o_custkey < c_custkey) FROM customer:
	// a non-equality correlation, unnested against the distinct customer keys (decorrelate_dependent.go).
	"isthmus/subquery_scalar_nonequi": {want: func() (out [][]any) {
		for _, c := range customers {
			var m any
			for _, o := range orders {
				if o.cust < c.key && (m == nil || o.price > m.(float64)) {
					m = o.price
				}
			}
			out = append(out, []any{c.name, m})
		}
		return out
	}},
	// SELECT c_name FROM customer WHERE EXISTS (SELECT * FROM orders WHERE o_custkey = c_custkey AND
	//   EXISTS (SELECT * FROM customer c2 WHERE c2.c_nationkey = customer.c_nationkey AND c2.c_custkey <> o_custkey)):
	// a correlation two levels out, unnested with the middle query (decorrelate_general.go).
	"isthmus/subquery_two_levels": {want: func() (out [][]any) {
		for _, c := range customers {
			found := false
			for _, o := range orders {
				for _, c2 := range customers {
					found = found || o.cust == c.key && c2.nation == c.nation && c2.key != o.cust
				}
			}
			if found {
				out = append(out, []any{c.name})
			}
		}
		return out
	}},
	// SELECT c_name FROM customer c WHERE EXISTS (SELECT * FROM orders JOIN customer c2
	//   ON o_custkey = c2.c_custkey AND c2.c_nationkey = c.c_nationkey): an outer reference in a
	// join's condition, unnested through the join (decorrelate_general.go).
	"duckdb/subquery_correlated_join": {want: func() (out [][]any) {
		for _, c := range customers {
			found := false
			for _, o := range orders {
				for _, c2 := range customers {
					found = found || o.cust == c2.key && c2.nation == c.nation
				}
			}
			if found {
				out = append(out, []any{c.name})
			}
		}
		return out
	}},
	// Refused shapes, each named with its path in the plan.
	"duckdb/subquery_unique": {unsupported: "set predicate PREDICATE_OP_UNIQUE at root.input.project.input.filter: condition.subquery"},
}

// subqueryErr: the error a fixture must fail with over the current
// orders and customers, when it must.
var subqueryErr = map[string]func() error{
	// A scalar subquery returning two rows for an order.
	"isthmus/subquery_scalar_lookup": func() error {
		for _, o := range orders {
			n := 0
			for _, c := range customers {
				if c.key == o.cust {
					n++
				}
			}
			if n > 1 {
				return exec.ErrSubqueryRows
			}
		}
		return nil
	},
}

// subquerySQL is the SQL of the fixtures whose subqueries the SQL front
// end lowers too (it refuses correlated scalar subqueries, ANY/ALL other
// than <> ALL, and a correlated subquery holding a subquery):
// TestSubquerySQL checks that both front ends give
// the same rows.
var subquerySQL = map[string]string{
	"isthmus/subquery_in":               "SELECT c_name FROM customer WHERE c_custkey IN (SELECT o_custkey FROM orders WHERE o_orderstatus = 'F')",
	"isthmus/subquery_not_in":           "SELECT c_name FROM customer WHERE c_custkey NOT IN (SELECT o_custkey FROM orders)",
	"isthmus/subquery_exists":           "SELECT c_name FROM customer WHERE EXISTS (SELECT * FROM orders WHERE o_custkey = c_custkey AND o_totalprice > 200)",
	"isthmus/subquery_not_exists":       "SELECT o_orderkey FROM orders WHERE NOT EXISTS (SELECT * FROM customer WHERE c_custkey = o_custkey)",
	"isthmus/subquery_scalar":           "SELECT o_orderkey FROM orders WHERE o_totalprice > (SELECT avg(o_totalprice) FROM orders)",
	"duckdb/subquery_not_in_null":       "SELECT c_name FROM customer WHERE c_name NOT IN (SELECT o_comment FROM orders)",
	"duckdb/subquery_not_in":            "SELECT o_orderkey FROM orders WHERE o_comment NOT IN (SELECT c_name FROM customer)",
	"duckdb/subquery_not_in_correlated": "SELECT c_name FROM customer WHERE c_name NOT IN (SELECT o_comment FROM orders WHERE o_custkey = c_custkey)",
	"duckdb/subquery_in":                "SELECT o_orderkey FROM orders WHERE o_custkey IN (SELECT c_custkey FROM customer WHERE c_nationkey = 1)",
	"duckdb/subquery_exists":            "SELECT o_orderkey FROM orders o1 WHERE EXISTS (SELECT * FROM orders o2 WHERE o2.o_custkey = o1.o_custkey AND o2.o_orderkey <> o1.o_orderkey)",
}

// TestSubquerySQL: each fixture returns the rows its SQL returns through
// the SQL front end's own subquery lowering.
func TestSubquerySQL(t *testing.T) {
	fixtures := producerFixtures(t)
	for name, query := range subquerySQL {
		t.Run(name, func(t *testing.T) {
			mem := exectest.Mem(t)
			c := producerCatalog(t)
			c.mem = mem
			stmts, err := sql.Parse(query, sqlCatalog{c})
			if err != nil {
				t.Fatal(err)
			}
			want, explain, err := run(t, mem, c, stmts[0].(*sql.Query).Plan, plan.Options{}, nil, 3)
			if err != nil {
				t.Fatalf("SQL: %v\n%s", err, explain)
			}
			got, explain, err := run(t, mem, c, mustDecode(t, fixtures[name]), plan.Options{}, nil, 3)
			if err != nil {
				t.Fatalf("fixture: %v\n%s", err, explain)
			}
			sortAny(got)
			sortAny(want)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("fixture rows %v, SQL rows %v\n%s", got, want, explain)
			}
		})
	}
}

// anyOrder reports whether some order satisfies f.
func anyOrder(f func(order) bool) bool {
	for _, o := range orders {
		if f(o) {
			return true
		}
	}
	return false
}

// avgPrice is the average o_totalprice of the orders f keeps (false when
// none: the SQL average is NULL).
func avgPrice(f func(order) bool) (float64, bool) {
	sum, n := 0.0, 0
	for _, o := range orders {
		if f(o) {
			sum += o.price
			n++
		}
	}
	return sum / float64(n), n > 0
}

// notIn is x NOT IN (ys) by PostgreSQL's rules, true only when it is
// true (not NULL): ys empty, or x non-NULL and every y non-NULL and
// different from x.
func notIn(x any, ys func(yield func(any) bool)) bool {
	ok := true
	ys(func(y any) bool {
		if x == nil || y == nil || x == y {
			ok = false
		}
		return ok
	})
	return ok
}

// TestSubqueryRandomData runs every subquery fixture over random orders
// and customers (empty tables, NULL comments that collide with customer
// names, duplicate keys, tied prices) and checks its rows against the Go
// model and, where it has one, the SQL front end's lowering.
func TestSubqueryRandomData(t *testing.T) {
	savedOrders, savedCustomers := orders, customers
	defer func() { orders, customers = savedOrders, savedCustomers }()
	fixtures := producerFixtures(t)
	names := make([]string, 0, len(subqueryWant))
	for n, tc := range subqueryWant {
		if tc.want != nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func(vals ...any) any { return vals[rng.IntN(len(vals))] }
	rounds := 40
	if testing.Short() {
		rounds = 12
	}
	for round := range rounds {
		orders, customers = nil, nil
		for i := range rng.IntN(12) {
			orders = append(orders, order{key: int64(i + 1), cust: pick(int64(10), int64(20), int64(30), int64(40)).(int64),
				price: float64(10 * (1 + rng.IntN(30))), status: pick("O", "F", "P").(string),
				comment: pick(nil, "fast", "alice", "bob")})
		}
		for range rng.IntN(5) {
			customers = append(customers, customer{key: pick(int64(10), int64(20), int64(30), int64(50)).(int64),
				name: pick("alice", "bob", "carol").(string), nation: pick(int64(1), int64(2)).(int64)})
		}
		for _, name := range names {
			mem := exectest.Mem(t)
			c := producerCatalog(t)
			c.mem = mem
			got, explain, err := run(t, mem, c, mustDecode(t, fixtures[name]), plan.Options{}, nil, 1+rng.IntN(4))
			if f, ok := subqueryErr[name]; ok && f() != nil {
				if !errors.Is(err, f()) {
					t.Fatalf("round %d %s: error %v, want %v\n%s", round, name, err, f(), explain)
				}
				continue
			}
			if err != nil {
				t.Fatalf("round %d %s: %v\n%s", round, name, err, explain)
			}
			want := subqueryWant[name].want()
			sortAny(got)
			sortAny(want)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("round %d %s: rows %v, want %v\norders %v\ncustomers %v\n%s", round, name, got, want, orders, customers, explain)
			}
			query, ok := subquerySQL[name]
			if !ok {
				continue
			}
			stmts, err := sql.Parse(query, sqlCatalog{c})
			if err != nil {
				t.Fatal(err)
			}
			viaSQL, _, err := run(t, mem, c, stmts[0].(*sql.Query).Plan, plan.Options{}, nil, 3)
			if err != nil {
				t.Fatalf("round %d %s: SQL: %v", round, name, err)
			}
			sortAny(viaSQL)
			if fmt.Sprint(got) != fmt.Sprint(viaSQL) {
				t.Fatalf("round %d %s: rows %v, SQL rows %v", round, name, got, viaSQL)
			}
		}
	}
}

// TestPostJoinFilterSubquery: subqueries in a FULL join's post-join
// filter, which applies to the join's output after the NULL extension,
// as a filter over the join (optimize's postJoinFilter), its emit after
// it. The rows are PostgreSQL 15's for the same data (table pt, tRows'
// user columns) and
//
//	SELECT l.id, r.id FROM pt l FULL JOIN pt r ON l.id = r.id + 1 WHERE <filter>
//
// It was refused ("subquery in a JoinRel's expressions").
func TestPostJoinFilterSubquery(t *testing.T) {
	ext := `"extensions": [{"extensionFunction": {"functionAnchor": 1, "name": "or"}},
	  {"extensionFunction": {"functionAnchor": 2, "name": "equal"}}, {"extensionFunction": {"functionAnchor": 3, "name": "add"}},
	  {"extensionFunction": {"functionAnchor": 4, "name": "subtract"}}, {"extensionFunction": {"functionAnchor": 5, "name": "lt"}},
	  {"extensionFunction": {"functionAnchor": 6, "name": "gt"}}, {"extensionFunction": {"functionAnchor": 7, "name": "count"}},
	  {"extensionFunction": {"functionAnchor": 8, "name": "not"}}]`
	i64 := `{"i64": {"nullability": "NULLABILITY_NULLABLE"}}`
	call := func(f int, typ string, args ...string) string {
		vs := make([]string, len(args))
		for i, a := range args {
			vs[i] = `{"value": ` + a + `}`
		}
		return fmt.Sprintf(`{"scalarFunction": {"functionReference": %d, "outputType": %s, "arguments": [%s]}}`, f, typ, strings.Join(vs, ", "))
	}
	one := `{"literal": {"i64": "1"}}`
	outer := func(i string) string {
		return strings.Replace(vRef(i), `"rootReference": {}`, `"outerReference": {"stepsOut": 1}`, 1)
	}
	filtered := func(cond string) string {
		return `{"filter": {"common": {"direct": {}}, "input": ` + vRead + `, "condition": ` + cond + `}}`
	}
	exists := func(cond string) string {
		return `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": ` + filtered(cond) + `}}}`
	}
	// (SELECT count(*) FROM pt v WHERE v.id < r.id)
	count := `{"subquery": {"scalar": {"input": {"aggregate": {"common": {"direct": {}}, "input": ` + filtered(call(5, vBool, vRef("0"), outer("5"))) + `,
	  "groupings": [], "measures": [{"measure": {"functionReference": 7, "outputType": {"i64": {"nullability": "NULLABILITY_REQUIRED"}}}}]}}}}}`
	for _, tc := range []struct {
		name, filter string
		want         [][]any
	}{
		// EXISTS (SELECT 1 FROM pt v WHERE v.id = r.id - 1)
		{"exists", exists(call(2, vBool, vRef("0"), call(4, i64, outer("5"), one))),
			[][]any{{int64(12), int64(11)}, {int64(16), int64(15)}, {nil, int64(12)}, {nil, int64(16)}}},
		// (SELECT count(*) ...) > 3 OR NOT EXISTS (SELECT 1 FROM pt v WHERE v.id = l.id - 1)
		{"scalar-or-not-exists", call(1, vBool, call(6, vBool, count, `{"literal": {"i64": "3"}}`),
			call(8, vBool, exists(call(2, vBool, vRef("0"), call(4, i64, outer("0"), one))))),
			[][]any{{int64(10), nil}, {int64(14), nil}, {int64(16), int64(15)}, {nil, int64(12)}, {nil, int64(16)}, {nil, nil}, {nil, nil}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js := `{` + ext + `, "relations": [{"root": {"names": ["lid", "rid"],
			  "input": {"join": {"common": {"emit": {"outputMapping": [0, 5]}}, "left": ` + vRead + `, "right": ` + vRead + `, "type": "JOIN_TYPE_OUTER",
			  "expression": ` + call(2, vBool, vRef("0"), call(3, i64, vRef("5"), one)) + `, "postJoinFilter": ` + tc.filter + `}}}}]}`
			for _, threads := range []int{1, 2, 4} {
				mem := exectest.Mem(t)
				got, explain, err := run(t, mem, stdCatalog(t, mem), mustDecode(t, []byte(js)), plan.Options{Threads: threads}, nil, 2)
				if err != nil {
					t.Fatalf("threads %d: %v\n%s", threads, err, explain)
				}
				sortAny(got)
				want := slices.Clone(tc.want)
				sortAny(want)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("threads %d: rows %v, want %v\n%s", threads, got, want, explain)
				}
			}
		})
	}
}

// TestSubqueryRefusals: subqueries the planner cannot run as joins are
// ErrUnsupported naming what and where, never a decode error or an
// internal one.
func TestSubqueryRefusals(t *testing.T) {
	c := stdCatalog(t, exectest.Mem(t))
	ext := `"extensions": [{"extensionFunction": {"functionAnchor": 1, "name": "or"}},
	  {"extensionFunction": {"functionAnchor": 2, "name": "equal"}}, {"extensionFunction": {"functionAnchor": 3, "name": "sum0"}}]`
	outer := strings.Replace(vRef("0"), `"rootReference": {}`, `"outerReference": {"stepsOut": 1}`, 1)
	filter := func(cond string) string {
		return `{` + ext + `, "relations": [{"root": {"names": ["id", "name", "score", "_rowid", "_rowaddr"],
		  "input": {"filter": {"input": ` + vRead + `, "condition": ` + cond + `}}}}]}`
	}
	cases := []struct{ name, plan, want string }{
		{"aggregate-not-null-on-empty", filter(`{"scalarFunction": {"functionReference": 2, "outputType": ` + vBool + `, "arguments": [
		  {"value": ` + vRef("0") + `}, {"value": {"subquery": {"scalar": {"input": {"aggregate": {"input": {"filter": {"input": ` + vRead + `,
		    "condition": {"scalarFunction": {"functionReference": 2, "outputType": ` + vBool + `, "arguments": [{"value": ` + vRef("0") + `}, {"value": ` + outer + `}]}}}},
		    "groupings": [], "measures": [{"measure": {"functionReference": 3, "outputType": {"i64": {"nullability": "NULLABILITY_REQUIRED"}},
		      "arguments": [{"value": ` + vRef("0") + `}]}}]}}}}}}]}}`),
			"aggregate sum0 in a correlated scalar subquery (its value over no rows is not known to be NULL) at root.input.filter: condition.arguments[1].subquery.scalar.input.aggregate: measures[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := plan.Build(context.Background(), mustDecode(t, []byte(tc.plan)), c, plan.Options{})
			if !errors.Is(err, plan.ErrUnsupported) || errors.Is(err, errkind.Internal) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrUnsupported with %q", err, tc.want)
			}
		})
	}
}
