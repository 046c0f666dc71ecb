package sql

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// clockCatalog is testCatalog with a StatementClock that counts its calls.
type clockCatalog struct {
	fakeCatalog
	at    time.Time
	calls int
}

func (c *clockCatalog) StatementTime() time.Time { c.calls++; return c.at }

// TestNowLowering: now(), CURRENT_TIMESTAMP[(n)], LOCALTIMESTAMP[(n)] and
// CURRENT_DATE are constants of the one time the catalog gives per
// statement (asked once), rounded to n digits as
// AdjustTimestampForTypmod rounds, the date the UTC one; CURRENT_TIME
// (no time type) is refused by name.
func TestNowLowering(t *testing.T) {
	at := time.Date(2026, 12, 6, 23, 59, 59, 987_654_321, time.FixedZone("x", 3600))
	cat := &clockCatalog{fakeCatalog: testCatalog, at: at}
	stmts, err := Parse(`SELECT now(), current_timestamp, localtimestamp, transaction_timestamp(), current_timestamp(2), localtimestamp(0), current_date,
	  (SELECT now()) FROM t WHERE now() > TIMESTAMP '2000-01-01'`, cat)
	require.NoError(t, err)
	assert.Equal(t, 1, cat.calls, "one time per statement")
	root, names := reread(t, stmts[0].(*Query).Plan)
	assert.Equal(t, []string{"now", "current_timestamp", "localtimestamp", "transaction_timestamp", "current_timestamp", "localtimestamp", "current_date", "now"}, names)
	proj, ok := root.(*plan.ProjectRel)
	require.True(t, ok, "root %T", root)
	exprs := proj.Expressions()
	require.Len(t, exprs, 8)
	us := at.UnixMicro() // 2026-12-06 22:59:59.987654 UTC
	want := []any{tsLit(us), tsLit(us), tsLit(us), tsLit(us), tsLit(us + 2_346), tsLit(us + 12_346), dateLit(us / 86_400_000_000)}
	for i, w := range want {
		lit, ok := literalOf(exprs[i])
		require.True(t, ok, "item %d is not a constant: %v", i, exprs[i])
		assert.Equal(t, w, lit, "item %d", i)
	}
	assert.Equal(t, int64(990_000), (us+2_346)%1_000_000, "current_timestamp(2) rounds .987654 to .99")
	assert.Equal(t, int64(0), (us+12_346)%1_000_000, "localtimestamp(0) rounds .987654 up to the next second")

	// Each statement asks again.
	cat.calls = 0
	_, err = Parse(`SELECT now(); SELECT now(), now()`, cat)
	require.NoError(t, err)
	assert.Equal(t, 2, cat.calls)

	// Without a clock: the lowering's own time, in the bound around it.
	before := time.Now().UnixMicro()
	stmts, err = Parse(`SELECT now()`, testCatalog)
	require.NoError(t, err)
	after := time.Now().UnixMicro()
	root, _ = reread(t, stmts[0].(*Query).Plan)
	lit, ok := literalOf(root.(*plan.ProjectRel).Expressions()[0])
	require.True(t, ok)
	assert.GreaterOrEqual(t, int64(lit.(tsLit)), before)
	assert.LessOrEqual(t, int64(lit.(tsLit)), after)

	for _, q := range []string{"SELECT current_time", "SELECT localtime(2)", "SELECT current_user"} {
		_, err := Parse(q, testCatalog)
		assert.ErrorIs(t, err, ErrUnsupported, q)
	}
}

func TestDateAt(t *testing.T) {
	assert.Equal(t, int32(0), dateAt(time.Unix(0, 0)))
	assert.Equal(t, int32(-1), dateAt(time.Unix(-1, 0)), "the day before 1970 for a time before it")
	assert.Equal(t, int32(1), dateAt(time.Unix(86_400, 0)))
}
