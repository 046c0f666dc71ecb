package sql

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/plan"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// A constant IN a long list of constants (the packed path, constlist.go)
// is its value in the plan, as a short one is (constantInList): the CASE
// arm it decides is the CASE's value before anything divides by it, and
// the constant division raises while planning over no rows (seed 5 case
// 4524). A column operand keeps the packed list.
func TestConstantInLongListFolds(t *testing.T) {
	long := func(last string) string {
		return "'x'" + strings.Repeat(", 'y'", minConstList) + ", " + last
	}
	for sql, want := range map[string]bool{
		"SELECT ' 12 ' IN (" + long("' 12 '") + ") FROM t":                       true,
		"SELECT ' 12 ' NOT IN (" + long("' 12 '") + ") FROM t":                   false,
		"SELECT CAST('z' AS TEXT) IN (" + long("'w'") + ") FROM t":               false,
		"SELECT 5 IN (1" + strings.Repeat(", 2", minConstList) + ", 5) FROM t":   true,
		"SELECT 5 IN (1" + strings.Repeat(", 2", minConstList) + ", 1.5) FROM t": false,
	} {
		_, root, _ := parseQuery(t, sql)
		es := root.(*plan.ProjectRel).Expressions()
		require.Len(t, es, 1)
		assert.Equal(t, want, litValue(t, es[0]), sql[:40])
	}
	_, err := Parse("SELECT CAST('0' AS NUMERIC(8,2)) / (CASE WHEN ' 12 ' IN ("+long("' 12 '")+") THEN 0 WHEN id > 0 THEN 1 END) FROM t WHERE FALSE", testCatalog)
	assert.ErrorIs(t, err, sqlvalue.ErrDivisionByZero)

	// A column's IN is evaluated per row: the CASE is not decided, and
	// with no row nothing divides.
	_, err = Parse("SELECT CAST('0' AS NUMERIC(8,2)) / (CASE WHEN name IN ("+long("' 12 '")+") THEN 0 WHEN id > 0 THEN 1 END) FROM t WHERE FALSE", testCatalog)
	assert.NoError(t, err)
}
