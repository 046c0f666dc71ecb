package difftest

import (
	"hash/fnv"
	"strings"
)

// A CTE over a VALUES list in place of its table (sql/values.go): WITH
// c_t0 AS (SELECT DISTINCT * FROM (VALUES (CAST(... AS type), ...), ...)
// AS a(k, c0, ...) [WHERE ...]), the table's own rows, each item cast to
// its column's type, so the query over it has the table's answer and
// exercises VALUES lists as FROM items: their typing, their rows beside a
// WHERE, a shared subplan over them.

// valuesCTE sometimes makes c read its table's rows as a VALUES list. It
// chooses by a hash of the CTE's text, not by a draw of g's, so the cases
// that keep the table draw what they drew before (the generator's
// coverage tests count draws over fixed seeds).
func valuesCTE(c *CTE, t *Table) {
	if len(t.Rows) == 0 {
		return
	}
	h := fnv.New32a()
	h.Write([]byte(c.SQL()))
	if h.Sum32()%100 >= 30 {
		return
	}
	c.Values = t
}

// valuesItem is the FROM item of a CTE over VALUES: the rows, cast to the
// columns' types, aliased a with the columns' names.
func valuesItem(t *Table) string {
	rows := make([]string, len(t.Rows))
	for i, r := range t.Rows {
		items := make([]string, len(r))
		for j, v := range r {
			items[j] = "CAST(" + v + " AS " + t.Cols[j].Type.SQL() + ")"
		}
		rows[i] = "(" + strings.Join(items, ", ") + ")"
	}
	names := make([]string, len(t.Cols))
	for j, col := range t.Cols {
		names[j] = col.Name
	}
	return "(VALUES " + strings.Join(rows, ", ") + ") AS a(" + strings.Join(names, ", ") + ")"
}
