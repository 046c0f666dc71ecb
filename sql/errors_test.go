package sql

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want error
		msg  string // substring of the message
	}{
		{"SELEC 1", ErrSyntax, "line 1, column 1"},
		{"SELECT id\nFROM t WHERE", ErrSyntax, "line 2, column 13"},
		{"SELECT :ids, (", ErrSyntax, "line 1, column 15"}, // position in the caller's text, not the rewritten one
		{"SELECT 'unterminated", ErrSyntax, "line 1, column 8"},
		{"SELECT 1;\nSELEC 2", ErrSyntax, "line 2, column 1"},
		{"SELECT 'é', :p, (", ErrSyntax, "line 1, column 18"}, // columns count characters
		{"SELECT 'é', :p, nope FROM t", ErrUnknownColumn, "line 1, column 17"},
		{"SELECT * FROM nope", ErrUnknownTable, `"nope"`},
		{"SELECT x.id FROM t", ErrUnknownTable, `"x"`},
		{"SELECT t.id FROM t AS x", ErrUnknownTable, `"t"`},
		{"SELECT nope FROM t", ErrUnknownColumn, `"nope" does not exist at line 1, column 8`},
		{"SELECT t.nope FROM t", ErrUnknownColumn, `"t.nope"`},
		{"SELECT id FROM t JOIN u ON t.id = u.id", ErrAmbiguous, `"id" is ambiguous`},
		{"SELECT _rowid FROM t JOIN u ON t.id = u.id", ErrAmbiguous, "_rowid"},
		{"SELECT 1 FROM t JOIN t ON t.id = t.id", ErrAmbiguous, "more than once"},
		{"SELECT id AS a, name AS a FROM t ORDER BY a", ErrAmbiguous, "ORDER BY"},
		{"SELECT id FROM t GROUP BY CUBE (id, id, id, id, id, id, id, id, id, id, id, id, id)", ErrInvalid, "CUBE is limited to 12 elements"},
		{"SELECT DISTINCT ON (id) id, name FROM t ORDER BY name, id", ErrInvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions at line 1, column 21"},
		{"SELECT id, name FROM t GROUP BY id", ErrInvalid, "must appear in the GROUP BY clause"},
		{"SELECT id FROM t GROUP BY id HAVING EXISTS (SELECT 1 FROM u WHERE u.id = t.name)", ErrInvalid, `subquery uses ungrouped column "t.name" from outer query at line 1`},
		{"SELECT id FROM t UNION SELECT name FROM t", ErrType, "UNION types bigint and text cannot be matched"},
		{"SELECT id FROM t EXCEPT SELECT id, id FROM t", ErrInvalid, "same number of columns"},
		{"SELECT DISTINCT id FROM t ORDER BY name", ErrInvalid, "must appear in select list"},
		{"SELECT id FROM t, u", ErrAmbiguous, `"id" is ambiguous`},
		{"SELECT 1 FROM t, t", ErrAmbiguous, "more than once"},
		{"SELECT 1 FROM (t JOIN u USING (id)) AS j", ErrUnsupported, "alias on a join"},
		// Row comparisons (rowcmp.go): PostgreSQL's errors for unequal
		// row lengths and a subquery's column count.
		{"SELECT id FROM t WHERE id = 1 OR (id, id) < (1, 2, 3)", ErrSyntax, "unequal number of entries in row expressions at line 1, column 43"},
		{"SELECT id FROM t WHERE (id, id) < (SELECT id FROM u)", ErrInvalid, "subquery has too few columns at line 1, column 35"},
		{"SELECT id FROM t WHERE (id, id) > ANY (SELECT id, id, id FROM u)", ErrInvalid, "subquery has too many columns at line 1, column 33"},
		{"SELECT id FROM t WHERE (id, id) < 1", ErrType, "record"},
		// A LIMIT stands between the correlation and the join the
		// optimizer would make: refused here, where its position is known.
		// An aggregate of both levels' columns (sum(t.id) alone is the
		// outer query's: outeragg.go).
		{"SELECT (SELECT sum(u.id + t.id) FROM u) FROM t", ErrUnsupported, `correlated reference "t.id" (a subquery names the enclosing queries anywhere but in an aggregate's arguments) at line 1, column 27`},
		{"SELECT id FROM t WHERE EXISTS (SELECT count(*) FROM u WHERE u.id = t.id GROUP BY u.id HAVING max(t.id) > 0)", ErrUnsupported, "correlated"},
		{"SELECT t.id FROM t WHERE t.id IN (SELECT id, id FROM u)", ErrInvalid, "too many columns"},
		{"SELECT (SELECT id, id FROM u)", ErrInvalid, "only one column"},
		{"SELECT id FROM t WHERE (id, id) IN (SELECT id FROM u)", ErrInvalid, "too few columns"},
		{"WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r", ErrUnsupported, "RECURSIVE"},
		{"WITH a AS (SELECT 1), a AS (SELECT 2) SELECT * FROM a", ErrInvalid, "specified more than once"},
		{"WITH a(x, y) AS (SELECT 1) SELECT * FROM a", ErrInvalid, "1 columns available but 2"},
		{"WITH a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a", ErrUnknownTable, `"b"`},
		{"SELECT * FROM t, LATERAL (SELECT sum(t.id) AS s FROM u) s", ErrUnsupported, "correlated"},
		{"SELECT * FROM t, LATERAL generate_series(1, t.score) s", ErrUnsupported, "generate_series over"},
		{"SELECT md5(name) FROM t", ErrUnsupported, "function md5"},
		{"SELECT id FROM t LIMIT $1", ErrUnsupported, "LIMIT"},
		{"SELECT * FROM unnest(ARRAY[1], ARRAY[2])", ErrUnsupported, "UNNEST with 2"},
		{"SELECT * FROM unnest(ARRAY[id])", ErrUnknownColumn, "id"},
		{"DROP SEQUENCE t", ErrUnsupported, "DROP SEQUENCE"},
		{"DROP TABLE t CASCADE", ErrUnsupported, "CASCADE"},
		{"DROP TABLE t, u", ErrUnsupported, "2 objects"},
		{"ANALYZE t (id)", ErrUnsupported, "ANALYZE"},
		// The numeric versions of the double precision math functions.
		{"SELECT round(CAST(id AS NUMERIC(20,2)), id) FROM t", ErrUnsupported, "n not a constant"},
		{"SELECT round(CAST(id AS NUMERIC(20,2)), 39) FROM t", ErrUnsupported, "at most 38"},
		{"SELECT sqrt(CAST(id AS NUMERIC(20,2))) FROM t", ErrUnsupported, "sqrt(numeric)"},
		{"SELECT power(2.0, CAST(id AS NUMERIC(20,2))) FROM t", ErrUnsupported, "power(numeric)"},
		{"SELECT id FROM t WHERE name = 5", ErrType, "text"},
		{"SELECT id FROM t WHERE id = 'abc'", ErrType, "invalid input syntax for type bigint"},
		{"SELECT name + 1 FROM t", ErrType, "cannot compare or combine"},
		{"SELECT name + name FROM t", ErrType, "numbers"},
		{"SELECT id FROM t WHERE id", ErrType, "boolean"},
		{"SELECT $0", ErrParam, "$0"},
		{"SELECT $2", ErrParam, "$1 is never used"},
		{"SELECT :a, $1", ErrParam, "mix :name and $k parameters in one statement (the $k at line 1, column 12)"},
		{"SELECT * FROM UNNEST(:ids) AS v(x) WHERE x = :ids", ErrParam, ":ids"},
		{"SELECT id FROM t WHERE id = $1 AND name = $1", ErrParam, "$1"},
		{"SELECT $70000", ErrParam, "$70000"},
		{"SELECT id, count(*) FROM t", ErrInvalid, "GROUP BY"},
		{"SELECT id FROM t WHERE count(*) > 1", ErrInvalid, "WHERE"},
		{"SELECT count(count(*)) FROM t", ErrInvalid, "aggregate arguments"},
		{"SELECT id FROM t ORDER BY 3", ErrInvalid, "position 3"},
		{"SELECT id FROM t LIMIT -1", ErrInvalid, "negative"},
		{"SELECT * FROM generate_series(1, 5, 0)", ErrInvalid, "zero"},
		{"SELECT * FROM UNNEST(ARRAY[1]) AS v(a, b)", ErrInvalid, "1 columns available"},
		{"INSERT INTO t VALUES (1, 'a', 1.0, 2)", ErrInvalid, "more expressions"},
		{"INSERT INTO t (id, name) VALUES (1)", ErrInvalid, "more target columns"},
		{"INSERT INTO t (id, id) VALUES (1, 2)", ErrInvalid, "more than once"},
		{"INSERT INTO t (_rowid) VALUES (1)", ErrInvalid, "system column"},
		{"INSERT INTO t (nope) VALUES (1)", ErrUnknownColumn, "nope"},
		{"INSERT INTO nope VALUES (1)", ErrUnknownTable, "nope"},
		{"INSERT INTO t (id) VALUES ('x')", ErrType, "bigint"},
		{"INSERT INTO u (flag) VALUES (1)", ErrType, "boolean"},
		{"INSERT INTO t VALUES (1) RETURNING id", ErrUnsupported, "RETURNING"},
		{"UPDATE t SET nope = 1", ErrUnknownColumn, "nope"},
		{"UPDATE t SET id = 1, id = 2", ErrInvalid, "multiple assignments"},
		{"UPDATE t SET _rowid = 1", ErrInvalid, "system column"},
		{"UPDATE t SET id = 1 FROM u", ErrUnsupported, "FROM"},
		{"DELETE FROM t WHERE nope = 1", ErrUnknownColumn, "nope"},
		{"DELETE FROM t USING u", ErrUnsupported, "USING"},
		{"CREATE TABLE x (a BIGINT CHECK ((SELECT 1) > 0))", ErrUnsupported, "cannot use subquery in check constraint"},
		{"CREATE TABLE x (a BIGINT, A TEXT)", ErrInvalid, "more than once"},
		{"CREATE TABLE x (_rowid BIGINT)", ErrInvalid, "reserved"},
		{"CREATE TABLE x (a INTERVAL)", ErrUnsupported, "interval"},
		{"CREATE INDEX ON t USING hash (id)", ErrUnsupported, "hash"},
		{"CREATE INDEX ON t ((id + 1))", ErrUnsupported, "expression index"},
		{"CREATE INDEX ON t (id, nope)", ErrUnknownColumn, "nope"},
		{"CREATE INDEX ON t (nope)", ErrUnknownColumn, "nope"},
		{"CREATE INDEX ON nope (id)", ErrUnknownTable, "nope"},
		{"EXPLAIN VERBOSE SELECT 1", ErrUnsupported, "verbose"},
		{"EXPLAIN DELETE FROM t", ErrUnsupported, "EXPLAIN"},
	} {
		_, err := Parse(c.sql, testCatalog)
		if !assert.Error(t, err, c.sql) {
			continue
		}
		assert.True(t, errors.Is(err, c.want), "%s: %v is not %v", c.sql, err, c.want)
		assert.True(t, strings.Contains(err.Error(), c.msg), "%s: %q lacks %q", c.sql, err, c.msg)
		assert.False(t, errors.Is(err, ErrInternal), "%s: %v", c.sql, err)
	}
}
