package sql

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFromFileRewrite: a string constant where a SELECT's FROM item goes
// becomes the table function of its extension, named after the file; the
// FROM of an expression, of IS DISTINCT FROM, of COPY and DELETE, and a
// constant of another extension are left alone.
func TestFromFileRewrite(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"SELECT * FROM 'x.csv'", `SELECT * FROM read_csv('x.csv') AS "x"`},
		{"SELECT * FROM 'dir/s.parquet' s WHERE 1 = 1", "SELECT * FROM read_parquet('dir/s.parquet') s WHERE 1 = 1"},
		{"SELECT * FROM 'a.tbl' JOIN 'd/*.parquet' ON true, 'b.TSV' AS q", `SELECT * FROM read_csv('a.tbl') AS "a" JOIN read_parquet('d/*.parquet') ON true, read_csv('b.TSV') AS q`},
		{"SELECT * FROM t, 'x.csv' LIMIT 1", `SELECT * FROM t, read_csv('x.csv') AS "x" LIMIT 1`},
		{"SELECT (SELECT count(*) FROM 'it''s.csv')", `SELECT (SELECT count(*) FROM read_csv('it''s.csv') AS "it's")`},
		{"SELECT * FROM $$x.csv$$", `SELECT * FROM read_csv($$x.csv$$) AS "x"`},
		// Left alone:
		{"SELECT substring(s FROM 'x.csv'), extract(year FROM d) FROM t", ""},
		{"SELECT a IS DISTINCT FROM 'x.csv', 'y.csv' FROM t", ""},
		{"SELECT a FROM t WHERE a IS NOT DISTINCT FROM 'x.csv'", ""},
		{"SELECT 1 FROM t ORDER BY 1, 'x.csv'", ""},
		{"COPY t FROM 'x.csv'", ""},
		{"DELETE FROM t WHERE s = 'x.csv'", ""},
		{"SELECT * FROM 'x.json'", ""},
		{"SELECT 'x.csv' FROM t", ""},
	} {
		src, err := rewrite(c.in, Pos{Line: 1, Column: 1})
		require.NoError(t, err, c.in)
		want := c.out
		if want == "" {
			want = c.in
		}
		assert.Equal(t, want, src.text, c.in)
	}
}

// TestFromFileRewritePositions: offsets in the rewritten text map back to
// the caller's: the function's to its string's, the alias's and what
// follows to after the string.
func TestFromFileRewritePositions(t *testing.T) {
	in := "SELECT :p, y FROM 'x.csv' WHERE z"
	src, err := rewrite(in, Pos{Line: 1, Column: 1})
	require.NoError(t, err)
	require.Equal(t, `SELECT $1, y FROM read_csv('x.csv') AS "x" WHERE z`, src.text)
	at := func(sub, in string) int { return strings.Index(in, sub) }
	assert.Equal(t, at("'x.csv'", in), src.origOffset(at("read_csv", src.text)))
	assert.Equal(t, at("'x.csv'", in), src.origOffset(at("'x.csv'", src.text)))
	assert.Equal(t, at("y FROM", in), src.origOffset(at("y FROM", src.text)))
	assert.Equal(t, at("WHERE", in), src.origOffset(at("WHERE", src.text)))
	assert.Equal(t, at(" z", in), src.origOffset(at(" z", src.text)))
}
