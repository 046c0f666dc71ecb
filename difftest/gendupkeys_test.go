package difftest

import "testing"

// TestGeneratorDrawsDuplicateKeys: some generated cases group by two
// SELECT items of one expression, one of them by position, inside a
// grouping-set form (gendupkeys.go), and those never carry an ORDER BY
// PostgreSQL 15 would partly drop.
func TestGeneratorDrawsDuplicateKeys(t *testing.T) {
	dups, underSets := 0, 0
	for i := 0; i < 3000; i++ {
		q := caseGen(1, i).Case().Query
		if q == nil || len(q.GroupBy) == 0 {
			continue
		}
		seen := map[string]bool{}
		dup := false
		for _, e := range q.Select {
			dup = dup || seen[e.SQL()]
			seen[e.SQL()] = true
		}
		if !dup {
			continue
		}
		dups++
		if !groupsBySets(q.GroupBy) {
			continue
		}
		underSets++
		if q.OrderAll || q.Limit >= 0 || q.Offset >= 0 {
			t.Errorf("ordered over equal items: %s", q.SQL())
		}
	}
	// Grouping sets are drawn rarely (a key reading no column excludes
	// them): a few of 3000 cases.
	if dups < 60 || underSets < 2 {
		t.Errorf("3000 cases: %d grouped by two equal items, %d of them under grouping sets", dups, underSets)
	}
}
