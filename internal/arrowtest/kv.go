package arrowtest

import (
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
)

// KVSchema is the two-column input (a nullable bigint k, a nullable text
// s) of the operator tests in exec and the expression tests in
// exec/physexpr; one definition, so both packages test over the same rows.
var KVSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// RandRows is n rows of KVSchema: k in [0, 10) or NULL (1 in 5), s one
// letter or NULL (1 in 7). Few distinct keys, so joins and groups match
// many rows, and NULLs in both columns.
func RandRows(r *rand.Rand, n int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		var k any = int64(r.IntN(10))
		if r.IntN(5) == 0 {
			k = nil
		}
		var s any = string(rune('a' + r.IntN(26)))
		if r.IntN(7) == 0 {
			s = nil
		}
		rows[i] = []any{k, s}
	}
	return rows
}
