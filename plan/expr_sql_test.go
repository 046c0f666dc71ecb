package plan_test

import (
	"errors"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// TestSQLArithmeticAndCasts runs the statements from SQL to
// results. Expected values and errors are PostgreSQL's: -k, k / -1 and
// 2 - k of k = -2^63 are "bigint out of range"; CAST(1234567.0 AS TEXT)
// is '1234567.0' (numeric), of its double '1234567'.
func TestSQLArithmeticAndCasts(t *testing.T) {
	// k is a column holding -2^63 twice; :m is the scalar -2^63.
	const minK = "UNNEST(:ks) AS v(k)"
	cases := []struct {
		sql  string
		want [][]any
		err  error
	}{
		{"SELECT -k FROM " + minK, nil, physexpr.ErrOutOfRange},
		{"SELECT k / -1 FROM " + minK, nil, physexpr.ErrOutOfRange},
		{"SELECT 2 - k FROM " + minK, nil, physexpr.ErrOutOfRange},
		{"SELECT k * -1 FROM " + minK, nil, physexpr.ErrOutOfRange},
		{"SELECT k % -1 FROM " + minK, [][]any{{int64(0)}, {int64(0)}}, nil},
		{"SELECT k / 0 FROM " + minK, nil, physexpr.ErrDivisionByZero},
		{"SELECT -k FROM generate_series(-3, -2) AS g(k)", [][]any{{int32(3)}, {int32(2)}}, nil},
		// 1234567.0 is numeric (issue 26 §2): numeric_out keeps its
		// scale, numeric has no -0, numeric to bigint rounds half away
		// from zero; as double precision float8out drops the .0, -0
		// stays, and rint rounds half to even.
		{"SELECT CAST(1234567.0 AS TEXT)", [][]any{{"1234567.0"}}, nil},
		{"SELECT CAST(k * 1234567.0 AS TEXT) FROM generate_series(1, 1) AS g(k)", [][]any{{"1234567.0"}}, nil},
		{"SELECT CAST(-(k * 0.0) AS TEXT) FROM generate_series(1, 1) AS g(k)", [][]any{{"0.0"}}, nil},
		{"SELECT CAST(k * 2.5 AS BIGINT) FROM generate_series(1, 1) AS g(k)", [][]any{{int64(3)}}, nil},
		{"SELECT CAST(CAST(1234567.0 AS DOUBLE PRECISION) AS TEXT)", [][]any{{"1234567"}}, nil},
		{"SELECT CAST(k * CAST(1234567.0 AS DOUBLE PRECISION) AS TEXT) FROM generate_series(1, 1) AS g(k)", [][]any{{"1234567"}}, nil},
		{"SELECT CAST(-(k * CAST(0.0 AS DOUBLE PRECISION)) AS TEXT) FROM generate_series(1, 1) AS g(k)", [][]any{{"-0"}}, nil},
		{"SELECT CAST(k * CAST(2.5 AS DOUBLE PRECISION) AS BIGINT) FROM generate_series(1, 1) AS g(k)", [][]any{{int64(2)}}, nil},
		{"SELECT CAST(k * 1e300 * 1e300 AS BIGINT) FROM generate_series(1, 1) AS g(k)", nil, physexpr.ErrOutOfRange},
		{"SELECT -:m", nil, physexpr.ErrOutOfRange},
		// A predicate over parameters only is one scalar per batch: it keeps
		// or drops whole batches.
		{"SELECT k FROM generate_series(1, 3) AS g(k) WHERE :m < 0", [][]any{{int32(1)}, {int32(2)}, {int32(3)}}, nil},
		{"SELECT k FROM generate_series(1, 3) AS g(k) WHERE :m > 0 OR k = 2", [][]any{{int32(2)}}, nil},
		{"SELECT CAST(k + 9007199254740992 AS DOUBLE PRECISION) FROM generate_series(1, 1) AS g(k)", [][]any{{float64(9007199254740992)}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.sql, func(t *testing.T) {
			mem := exectest.Mem(t)
			c := stdCatalog(t, mem)
			stmts, err := sql.Parse(tc.sql, sqlCatalog{c})
			if err != nil {
				t.Fatal(err)
			}
			q := stmts[0].(*sql.Query)
			params := map[int]any{}
			for i, n := range q.ParamNames {
				params[i+1] = int64(-1 << 63)
				if n == "ks" {
					params[i+1] = []int64{-1 << 63, -1 << 63}
				}
			}
			rows, explain, err := run(t, mem, c, q.Plan, plan.Options{}, params, 2)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("got %v, %v; want %v\n%s", rows, err, tc.err, explain)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, explain)
			}
			equalRows(t, rows, tc.want)
		})
	}
}
