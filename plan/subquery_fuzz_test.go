package plan_test

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/internal/fuzzseed"
	"github.com/stablerow/stablerow/plan"
)

// FuzzSubquery mutates the subquery fixtures where decorrelation
// (optimize.Decorrelate, which Build runs) is most likely to go wrong —
// field indices, outer references' steps_out, emit mappings, join and
// predicate kinds, function anchors — and runs what
// loads: every plan either fails with a typed error (never an internal
// one, never a panic) or runs to completion without leaking memory.
// Byte mutation of the whole plan (FuzzPlanLoad) seldom keeps the JSON
// valid deep inside a subquery; this target always does. It lives here,
// not in plan/optimize, because Decorrelate trusts a validated plan and
// its output must also plan and run: Build is the unit under test.
//
// The input: byte 0 picks the fixture; each following pair (i, v) sets
// its i-th mutable leaf (numbers and enum names, in document order) to
// a value derived from v.
func FuzzSubquery(f *testing.F) {
	for _, s := range subquerySeeds(f) {
		f.Add(s)
	}
	names, fixtures := subqueryFixtures(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		var doc any
		if err := json.Unmarshal(fixtures[names[int(data[0])%len(names)]], &doc); err != nil {
			t.Fatal(err)
		}
		leaves := mutableLeaves(doc)
		for i := 1; i+1 < len(data); i += 2 {
			if len(leaves) == 0 {
				break
			}
			leaves[int(data[i])%len(leaves)].set(data[i+1])
		}
		js, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := plan.DecodePlan(js)
		if err != nil {
			return
		}
		mem := exectest.Mem(t)
		c := producerCatalog(t)
		c.mem = mem
		_, _, err = run(t, mem, c, pb, plan.Options{}, nil, 2)
		if err != nil && (errors.Is(err, errkind.Internal) || errkind.Of(err) == nil) {
			t.Fatalf("%v\n%s", err, js)
		}
	})
}

// leaf is a mutable value in a decoded JSON plan.
type leaf struct{ set func(v byte) }

// enumValues are the alternatives of the enum fields Decorrelate reads.
var enumValues = map[string][]string{
	"predicateOp":  {"PREDICATE_OP_EXISTS", "PREDICATE_OP_UNIQUE", "PREDICATE_OP_UNSPECIFIED"},
	"reductionOp":  {"REDUCTION_OP_ANY", "REDUCTION_OP_ALL", "REDUCTION_OP_UNSPECIFIED"},
	"comparisonOp": {"COMPARISON_OP_EQ", "COMPARISON_OP_NE", "COMPARISON_OP_LT", "COMPARISON_OP_GT", "COMPARISON_OP_LE", "COMPARISON_OP_GE"},
	"type":         {"JOIN_TYPE_INNER", "JOIN_TYPE_LEFT", "JOIN_TYPE_LEFT_SEMI", "JOIN_TYPE_LEFT_ANTI", "JOIN_TYPE_LEFT_SINGLE", "JOIN_TYPE_OUTER"},
}

// mutableLeaves lists doc's numbers (set to v-2: small, sometimes
// negative) and enum strings (set to one of enumValues), in a
// deterministic order.
func mutableLeaves(doc any) []leaf {
	var out []leaf
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				switch y := x[k].(type) {
				case float64:
					out = append(out, leaf{func(v byte) { x[k] = float64(int(v) - 2) }})
				case string:
					if alts, ok := enumValues[k]; ok {
						out = append(out, leaf{func(v byte) { x[k] = alts[int(v)%len(alts)] }})
					}
				default:
					walk(y)
				}
			}
		case []any:
			for i, e := range x {
				if _, ok := e.(float64); ok {
					out = append(out, leaf{func(v byte) { x[i] = float64(int(v) - 2) }})
					continue
				}
				walk(e)
			}
		}
	}
	walk(doc)
	return out
}

// subqueryFixtures are the subquery fixtures, by sorted name.
func subqueryFixtures(t testing.TB) ([]string, map[string][]byte) {
	all := producerFixtures(t)
	var names []string
	for n := range all {
		if strings.Contains(n, "/subquery_") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, all
}

// subquerySeeds: each fixture unchanged, and with one of a few
// mutations.
func subquerySeeds(t testing.TB) [][]byte {
	names, _ := subqueryFixtures(t)
	var out [][]byte
	for i := range names {
		out = append(out, []byte{byte(i)}, []byte{byte(i), 3, 3}, []byte{byte(i), 17, 1, 40, 0})
	}
	return out
}

// TestFuzzSubqueryCorpus regenerates testdata/fuzz/FuzzSubquery
// (STABLEROW_WRITE_CORPUS=1).
func TestFuzzSubqueryCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzSubquery", subquerySeeds(t))
}
