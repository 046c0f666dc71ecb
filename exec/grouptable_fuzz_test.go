package exec_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
)

var fuzzGroupSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// fuzzFloats are the float keys with equality traps: -0 and 0, two NaN
// payloads, and values whose bytes differ little.
var fuzzFloats = []float64{0, math.Copysign(0, -1), math.NaN(), math.Float64frombits(math.Float64bits(math.NaN()) | 3), 1, math.Inf(-1), 5e-324}

// FuzzGroupTable groups fuzzed rows three ways (one int64 key: the
// table's value-keyed path; a float and a string key: the encoded path;
// no key) and checks each group's count(*) against a model that keys rows
// by their canonical printed value (NULL apart, NaN one value, -0 = 0),
// groups in order of first appearance, and the ordered aggregation over the
// same rows against the run-length model.
func FuzzGroupTable(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0xff, 0x00, 0xff, 0x00, 0x12, 0x34})
	f.Add([]byte("NaN and -0 and NULL"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 600 {
			data = data[:600]
		}
		var rows [][]any
		for i := 0; i+1 < len(data); i += 2 {
			a, b := data[i], data[i+1]
			var k, fv, s any = int64(a%5) - 2, fuzzFloats[int(b)%len(fuzzFloats)], string(rune('a' + b%3))
			if a&0x80 != 0 {
				k = nil
			}
			if b&0x40 != 0 {
				fv = nil
			}
			if b&0x80 != 0 {
				s = nil
			}
			rows = append(rows, []any{k, fv, s})
		}
		canon := func(v any) string {
			switch x := v.(type) {
			case nil:
				return "NULL"
			case float64:
				if math.IsNaN(x) {
					return "NaN"
				}
				if x == 0 {
					return "0"
				}
			}
			return fmt.Sprintf("%v", v)
		}
		count := []exec.Aggregate{{Func: exec.AggCountStar, Name: "n"}}
		for _, cols := range [][]int{{0}, {1, 2}, nil} {
			var order []string
			counts := map[string]int64{}
			var runs []string
			var runCounts []int64
			for _, r := range rows {
				key := ""
				for _, c := range cols {
					key += canon(r[c]) + "|"
				}
				if counts[key] == 0 {
					order = append(order, key)
				}
				counts[key]++
				if len(runs) == 0 || runs[len(runs)-1] != key {
					runs, runCounts = append(runs, key), append(runCounts, 0)
				}
				runCounts[len(runCounts)-1]++
			}
			if cols == nil && len(order) == 0 {
				order, counts[""] = []string{""}, 0
			}
			check := func(got [][]any, keys []string, n func(i int) int64) {
				if len(got) != len(keys) {
					t.Fatalf("cols %v: %d groups, model %d", cols, len(got), len(keys))
				}
				for i, row := range got {
					key := ""
					for j := range cols {
						key += canon(row[j]) + "|"
					}
					if key != keys[i] || row[len(cols)] != n(i) {
						t.Fatalf("cols %v group %d: %v, model %q × %d", cols, i, row, keys[i], n(i))
					}
				}
			}
			got, err := runNode(t, fuzzGroupSchema, rows, func(v exec.Node) (exec.Node, error) {
				return exec.NewHashAggregateExec(v, cols, count)
			})
			if err != nil {
				t.Fatal(err)
			}
			check(got, order, func(i int) int64 { return counts[order[i]] })
			if cols == nil {
				continue
			}
			got, err = runNode(t, fuzzGroupSchema, rows, func(v exec.Node) (exec.Node, error) {
				return exec.NewOrderedAggregateExec(v, cols, count)
			})
			if err != nil {
				t.Fatal(err)
			}
			check(got, runs, func(i int) int64 { return runCounts[i] })
		}
	})
}
