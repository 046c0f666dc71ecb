package difftest

import (
	"slices"
	"strings"
	"testing"
)

// TestManyJoinDraws: the generator draws FROMs of 3 to 12 tables, as
// explicit INNER/LEFT joins and as FROM lists in a shuffled order; each
// table joins an earlier one (by alias), every table's key breaks ties
// (when the query orders its rows), and the rendered SQL names each table
// once with its alias.
func TestManyJoinDraws(t *testing.T) {
	g := NewGen(7)
	lists, joins, big, left := 0, 0, 0, 0
	for range 4000 {
		c := g.Case()
		if c.Query == nil || c.Query.From.Kind != FromMany {
			continue
		}
		f := c.Query.From
		if len(f.Many) < 3 || len(f.Many) > 12 {
			t.Fatalf("%d tables", len(f.Many))
		}
		big += min(1, len(f.Many)/7)
		sql := c.Query.SQL()
		for i, it := range f.Many {
			if !strings.Contains(sql, it.Table+" AS "+it.Alias) || len(c.Query.Tiebreak) > 0 && !slices.Contains(c.Query.Tiebreak, it.Alias+".k") {
				t.Fatalf("item %d (%s AS %s) not in %s / tiebreak %v", i, it.Table, it.Alias, sql, c.Query.Tiebreak)
			}
			if i == 0 {
				continue
			}
			l, _, _ := strings.Cut(it.OnL, ".")
			if !slices.ContainsFunc(f.Many[:i], func(p ManyItem) bool { return p.Alias == l }) ||
				!strings.HasPrefix(it.OnR, it.Alias+".") {
				t.Fatalf("item %d joins on %s = %s: not an earlier table's column", i, it.OnL, it.OnR)
			}
			if it.Left {
				left++
			}
		}
		if f.List {
			lists++
			o := slices.Clone(f.Order)
			slices.Sort(o)
			for i := range o {
				if o[i] != i {
					t.Fatalf("order %v is not a permutation", f.Order)
				}
			}
			if !strings.Contains(sql, " WHERE ") {
				t.Fatalf("FROM list without its equalities: %s", sql)
			}
		} else {
			joins++
		}
	}
	if lists == 0 || joins == 0 || big == 0 || left == 0 {
		t.Fatalf("draws: %d lists, %d joins, %d of 7+ tables, %d LEFT joins", lists, joins, big, left)
	}
	t.Logf("%d lists, %d joins, %d of 7+ tables, %d LEFT joins", lists, joins, big, left)
}
