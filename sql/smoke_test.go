package sql

import "testing"

// TestAccepted parses every supported construct and re-reads the plan
// with substrait-go; the structural tests below check the shapes.
func TestAccepted(t *testing.T) {
	for _, q := range []string{
		"SELECT 1",
		"SELECT 1 + 2.5 AS x, 'a', NULL, true",
		"SELECT * FROM t",
		"SELECT t.* FROM t",
		"SELECT x.* FROM t AS x",
		"SELECT id, name FROM t WHERE id = 5",
		"SELECT id FROM t WHERE id = '5' AND score > 1 OR NOT (name = 'x')",
		"SELECT id FROM t WHERE id IN (1, 2, 3)",
		"SELECT id FROM t WHERE id NOT IN (1, 2.5)",
		"SELECT id FROM t WHERE name IS NULL AND score IS NOT NULL",
		"SELECT id FROM t WHERE id BETWEEN 1 AND 10",
		"SELECT -id, id * 2, id / 2, id - 1, -score FROM t",
		"SELECT CAST(id AS TEXT), score::bigint, '12'::int, 1.5::int FROM t",
		"SELECT count(*) FROM t",
		"SELECT count(*) AS n, count(name) + 1 FROM t WHERE id > 0",
		"SELECT id FROM t ORDER BY id DESC",
		"SELECT id AS k FROM t ORDER BY k NULLS FIRST",
		"SELECT id, name FROM t ORDER BY 2, 1 DESC NULLS LAST",
		"SELECT id FROM t ORDER BY score",
		"SELECT id FROM t ORDER BY id + 1",
		"SELECT id FROM t LIMIT 10",
		"SELECT id FROM t LIMIT 10 OFFSET 5",
		"SELECT id FROM t OFFSET 5",
		"SELECT id FROM t LIMIT ALL",
		"SELECT t.id, u.flag FROM t JOIN u ON t.id = u.id",
		"SELECT t.id, u.flag FROM t LEFT JOIN u ON u.id = t.id AND u.flag",
		"SELECT * FROM UNNEST(ARRAY[1, 2, 3])",
		"SELECT * FROM UNNEST(ARRAY['a', 'b']) WITH ORDINALITY AS v(s, o)",
		"SELECT * FROM UNNEST(ARRAY[1, 2.5]) AS v",
		"SELECT * FROM UNNEST($1::text[]) AS v(s)",
		"SELECT * FROM generate_series(1, 10) AS g",
		"SELECT * FROM generate_series(10, 1, -2)",
		"SELECT id FROM t WHERE id = :a AND score > :b AND id <> :a",
		"SELECT id FROM t WHERE name = $1",
		"SELECT _rowid, _rowaddr FROM t",
		"SELECT $1",
		"EXPLAIN SELECT id FROM t",
		"EXPLAIN ANALYZE SELECT id FROM t",
		"SELECT 1; SELECT 2;",
		"SELECT a.id FROM t a JOIN t b ON a.id = b.id",
		"SELECT count(*) FROM t ORDER BY 1",
	} {
		stmts, err := Parse(q, testCatalog)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		for _, st := range stmts {
			if qq, ok := st.(*Query); ok {
				reread(t, qq.Plan)
				checkParams(t, qq)
			}
		}
	}
}
