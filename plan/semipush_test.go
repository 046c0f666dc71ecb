package plan_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// Plans in Isthmus's style (a FROM list as a filter over a cross
// product) with an IN, EXISTS or NOT EXISTS conjunct on customer, the
// smaller item: the logical optimizer applies it to customer before the
// join (optimize/semipush.go), and the rows are those of the same query
// through the SQL front end.
const (
	pushExt = `"extensionUris": [{"extensionUriAnchor": 1, "uri": "/functions_comparison.yaml"}, {"extensionUriAnchor": 2, "uri": "/functions_boolean.yaml"}],
	"extensions": [{"extensionFunction": {"extensionUriReference": 1, "name": "equal:any_any"}}, {"extensionFunction": {"extensionUriReference": 1, "functionAnchor": 1, "name": "gt:any_any"}},
	  {"extensionFunction": {"extensionUriReference": 2, "functionAnchor": 2, "name": "and:bool"}}, {"extensionFunction": {"extensionUriReference": 2, "functionAnchor": 3, "name": "not:bool"}}]`
	pushOrders   = `{"read": {"common": {"direct": {}}, "baseSchema": {"names": ["O_ORDERKEY", "O_CUSTKEY", "O_TOTALPRICE", "O_ORDERSTATUS", "O_COMMENT"], "struct": {"types": [{"i64": {"nullability": "NULLABILITY_REQUIRED"}}, {"i64": {"nullability": "NULLABILITY_REQUIRED"}}, {"fp64": {"nullability": "NULLABILITY_REQUIRED"}}, {"fixedChar": {"length": 1, "nullability": "NULLABILITY_REQUIRED"}}, {"varchar": {"length": 79, "nullability": "NULLABILITY_NULLABLE"}}], "nullability": "NULLABILITY_REQUIRED"}}, "namedTable": {"names": ["ORDERS"]}}}`
	pushCustomer = `{"read": {"common": {"direct": {}}, "baseSchema": {"names": ["C_CUSTKEY", "C_NAME", "C_NATIONKEY"], "struct": {"types": [{"i64": {"nullability": "NULLABILITY_REQUIRED"}}, {"varchar": {"length": 25, "nullability": "NULLABILITY_REQUIRED"}}, {"i64": {"nullability": "NULLABILITY_REQUIRED"}}], "nullability": "NULLABILITY_REQUIRED"}}, "namedTable": {"names": ["CUSTOMER"]}}}`
	pushBool     = `{"bool": {"nullability": "NULLABILITY_NULLABLE"}}`
)

// pushRef is field i, of the input (steps 0) or steps out.
func pushRef(i, steps int) string {
	if steps > 0 {
		return fmt.Sprintf(`{"selection": {"directReference": {"structField": {"field": %d}}, "outerReference": {"stepsOut": %d}}}`, i, steps)
	}
	return fmt.Sprintf(`{"selection": {"directReference": {"structField": {"field": %d}}, "rootReference": {}}}`, i)
}

func pushCall(fn int, args ...string) string {
	for i, a := range args {
		args[i] = `{"value": ` + a + `}`
	}
	return fmt.Sprintf(`{"scalarFunction": {"functionReference": %d, "outputType": %s, "arguments": [%s]}}`, fn, pushBool, strings.Join(args, ", "))
}

// pushPlan is SELECT o_orderkey FROM orders, customer WHERE o_custkey =
// c_custkey AND set (orders' columns are 0-4, customer's 5-7).
func pushPlan(set string) string {
	cond := pushCall(2, pushCall(0, pushRef(1, 0), pushRef(5, 0)), set)
	return `{` + pushExt + `, "relations": [{"root": {"names": ["O_ORDERKEY"], "input": {"project": {"common": {"emit": {"outputMapping": [8]}},
	  "input": {"filter": {"common": {"direct": {}}, "input": {"cross": {"common": {"direct": {}}, "left": ` + pushOrders + `, "right": ` + pushCustomer + `}},
	  "condition": ` + cond + `}}, "expressions": [` + pushRef(0, 0) + `]}}}}]}`
}

func TestSemiPushAnswers(t *testing.T) {
	pricey := pushCall(1, pushRef(2, 0), `{"literal": {"fp64": 200}}`)
	exists := `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": {"filter": {"common": {"direct": {}}, "input": ` + pushOrders +
		`, "condition": ` + pushCall(2, pushCall(0, pushRef(1, 0), pushRef(5, 1)), pricey) + `}}}}}`
	cases := []struct{ name, set, sql string }{
		{"in", `{"subquery": {"inPredicate": {"needles": [` + pushRef(5, 0) + `], "haystack": {"project": {"common": {"emit": {"outputMapping": [5]}},
		  "input": {"filter": {"common": {"direct": {}}, "input": ` + pushOrders + `, "condition": ` + pricey + `}}, "expressions": [` + pushRef(1, 0) + `]}}}}}`,
			"c_custkey IN (SELECT o_custkey FROM orders WHERE o_totalprice > 200)"},
		{"exists", exists, "EXISTS (SELECT * FROM orders o2 WHERE o2.o_custkey = c_custkey AND o2.o_totalprice > 200)"},
		{"not-exists", pushCall(3, exists), "NOT EXISTS (SELECT * FROM orders o2 WHERE o2.o_custkey = c_custkey AND o2.o_totalprice > 200)"},
	}
	savedOrders, savedCustomers := orders, customers
	defer func() { orders, customers = savedOrders, savedCustomers }()
	rng := rand.New(rand.NewPCG(3, 5))
	for round := range 12 {
		if round > 0 {
			orders, customers = nil, nil
			for i := range rng.IntN(12) {
				orders = append(orders, order{key: int64(i + 1), cust: []int64{10, 20, 30, 40}[rng.IntN(4)],
					price: float64(10 * (1 + rng.IntN(30))), status: "O"})
			}
			for range rng.IntN(5) {
				customers = append(customers, customer{key: []int64{10, 20, 30, 50}[rng.IntN(4)], name: "alice", nation: 1})
			}
		}
		for _, tc := range cases {
			mem := exectest.Mem(t)
			c := producerCatalog(t)
			c.mem = mem
			got, explain, err := run(t, mem, rowCountCatalog{c}, mustDecode(t, []byte(pushPlan(tc.set))), plan.Options{}, nil, 1+rng.IntN(4))
			if err != nil {
				t.Fatalf("round %d %s: %v\n%s", round, tc.name, err, explain)
			}
			if round == 0 {
				// orders (7 rows) is the probe side; the set conjunct
				// is applied to customer (4 rows), under the join.
				inner, semi := strings.Index(explain, "type=Inner"), strings.Index(explain, "Semi")
				if semi < 0 {
					semi = strings.Index(explain, "Anti")
				}
				if inner < 0 || semi < inner {
					t.Fatalf("%s: the semi or anti join is not under the inner join\n%s", tc.name, explain)
				}
			}
			query := "SELECT o_orderkey FROM orders, customer WHERE o_custkey = c_custkey AND " + tc.sql
			stmts, err := sql.Parse(query, sqlCatalog{c})
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := run(t, mem, c, stmts[0].(*sql.Query).Plan, plan.Options{}, nil, 3)
			if err != nil {
				t.Fatalf("SQL: %v", err)
			}
			sortAny(got)
			sortAny(want)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("round %d %s: rows %v, SQL rows %v\norders %v\ncustomers %v\n%s", round, tc.name, got, want, orders, customers, explain)
			}
		}
	}
}
