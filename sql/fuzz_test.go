package sql

import (
	"errors"
	"testing"

	"github.com/stablerow/stablerow/internal/fuzzseed"
	"github.com/stablerow/stablerow/internal/substraitfn"
)

// sentinels are the errors Parse may return; anything else is a bug.
var sentinels = []error{ErrSyntax, ErrTooDeep, ErrUnsupported, ErrUnknownTable, ErrUnknownColumn, ErrAmbiguous, ErrType, ErrParam, ErrInvalid}

func fuzzSeeds() [][]byte {
	var out [][]byte
	for _, s := range []string{
		"SELECT v.ord, t._rowaddr FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord",
		"SELECT id, name FROM t WHERE id IN (1, 2) AND score > 1.5 ORDER BY 2 DESC LIMIT 3 OFFSET 1",
		"SELECT count(*) FROM t JOIN u ON t.id = u.id WHERE u.flag",
		"INSERT INTO t (id, name) VALUES (1, 'a'), (-2, NULL)",
		"INSERT INTO t SELECT g, 'x', g * 1.5 FROM generate_series(1, 10) AS g",
		"UPDATE t SET score = score + 1 WHERE name = :n; DELETE FROM t WHERE id = $1",
		"CREATE TABLE IF NOT EXISTS x (a BIGINT NOT NULL, b TEXT); CREATE INDEX ON x (a)",
		"SELECT * FROM UNNEST(ARRAY['a', 'b']::text[]) AS v(s) WHERE s <> ':x' -- :y",
		"EXPLAIN ANALYZE SELECT CAST(id AS text), '1'::int FROM t",
		"SELECT count(*), count(name) FROM t WHERE name NOT IN ('a', :b) OR id BETWEEN -1 AND 2",
		"SELECT * FROM UNNEST(ARRAY[1.5, NULL]) WITH ORDINALITY ORDER BY 2 DESC NULLS LAST",
		"DROP TABLE IF EXISTS x; DROP INDEX x_a_idx",
		"SELECT $1 = $1, x.* FROM t AS x(a, b) WHERE x.a > $1",
		"SELECT t.id, u.id FROM t FULL JOIN u ON t.id < u.id AND u.flag, t AS t2 CROSS JOIN u AS u2",
		"SELECT id FROM t WHERE id NOT IN (SELECT u.id FROM u WHERE u.id = t.id) AND EXISTS (SELECT 1 FROM u WHERE u.flag)",
		"WITH a(x) AS (SELECT id FROM t), b AS (SELECT x FROM a) SELECT (SELECT count(*) FROM b), * FROM a RIGHT JOIN (SELECT 1 AS y) s ON a.x = s.y",
		// TPC-H's shapes: intervals, decimal constants, FROM lists joined by
		// the WHERE, OR's shared conjuncts, correlated scalar aggregates.
		"SELECT date '1998-12-01' - interval '90' day, interval '1 year 2 mons' + date '2000-02-29', t.id FROM t, u WHERE t.id = u.id AND (t.id = u.id AND u.flag OR t.id = u.id AND t.score < 0.06 + 0.01)",
		"SELECT id FROM t WHERE score < (SELECT 0.5 * sum(u.id) FROM u WHERE u.id = t.id AND u.flag) AND score > (SELECT min(t2.score) FROM t AS t2, u WHERE t2.id = u.id AND t2.id = t.id)",
		// IN / EXISTS over one FROM item, applied to it before the joins
		// (semipush.go), and one over two items, left on top.
		"SELECT t.id FROM t, u, t AS t2 WHERE u.id IN (SELECT id FROM t GROUP BY id HAVING count(*) > 1) AND NOT EXISTS (SELECT 1 FROM u AS u2 WHERE u2.id = t2.id) AND EXISTS (SELECT 1 FROM u AS u3 WHERE u3.id = t.id AND u3.id <> t2.id) AND t.id = u.id AND t2.id = t.id",
		// Issue 28's shapes: a correlation in a subquery's join ON, LIKE
		// ANY (subquery), subqueries in GROUP BY, VALUES and SET, an outer
		// query's aggregate inside a subquery.
		"SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u FULL JOIN t AS t2 ON t2.id = u.id AND t2.score > t.score) AND name NOT ILIKE ALL (SELECT name || '%' FROM t AS t3 WHERE t3.id <> t.id)",
		"SELECT (SELECT max(u.id) FROM u WHERE u.id < t.id), count(*) FROM t GROUP BY 1 HAVING EXISTS (SELECT 1 FROM u WHERE u.id > sum(t.id))",
		"SELECT * FROM (VALUES (1, (SELECT count(*) FROM u))) AS v(a, b); UPDATE t SET score = (SELECT max(u.id) FROM u RIGHT JOIN t AS t2 ON t2.id = u.id AND u.id < t.id)",
	} {
		out = append(out, []byte(s))
	}
	return out
}

func TestWriteCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzParse", fuzzSeeds())
}

// FuzzParse checks that any text either fails with one of the sentinels or
// yields plans substrait-go reads back.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		stmts, err := Parse(string(b), testCatalog)
		if err != nil {
			if errors.Is(err, ErrInternal) {
				t.Fatalf("internal error: %v", err)
			}
			for _, s := range sentinels {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error wraps no sentinel: %v", err)
		}
		for _, st := range stmts {
			var q *Query
			switch x := st.(type) {
			case *Query:
				q = x
			case *Insert:
				q = x.Source
			case *Update:
				q = x.Rows
			case *Delete:
				q = x.Rows
			}
			if q == nil {
				continue
			}
			if _, _, err := substraitfn.RootFromProto(q.Plan); err != nil {
				t.Fatalf("plan does not re-read: %v", err)
			}
			checkParams(t, q)
		}
	})
}
