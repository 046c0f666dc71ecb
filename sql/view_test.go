package sql

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// viewCatalog is testCatalog with views.
type viewCatalog struct {
	fakeCatalog
	views map[string]*ViewDef
}

func (c viewCatalog) View(name string) (*ViewDef, bool, error) {
	v, ok := c.views[strings.ToLower(name)]
	return v, ok, nil
}

func (c viewCatalog) ViewNames() []string {
	var out []string
	for n := range c.views {
		out = append(out, n)
	}
	return out
}

// TestCreateViewLowering: CREATE VIEW keeps the SELECT's deparsed text,
// the column list's names over the SELECT's, the types as PostgreSQL
// names them and the relations read; a view's reference lowers its
// SELECT in place, under its columns and the reference's alias; DML on
// a view, parameters in one and a view reading itself are refused.
func TestCreateViewLowering(t *testing.T) {
	st := parseOne(t, `CREATE OR REPLACE VIEW V (a) AS SELECT id, name AS n, score * 2 FROM t WHERE id > 1`)
	cv, ok := st.(*CreateView)
	require.True(t, ok, "%T", st)
	assert.True(t, cv.Replace)
	assert.Equal(t, "v", cv.Def.Name)
	assert.Equal(t, "SELECT id, name AS n, score * 2 FROM t WHERE id > 1", cv.Def.SQL)
	assert.Equal(t, []string{"a", "n", "?column?"}, cv.Def.Columns)
	assert.Equal(t, []string{"bigint", "text", "double precision"}, cv.Def.Types)
	assert.Equal(t, []string{"t"}, cv.Def.Reads)

	st = parseOne(t, `CREATE VIEW c AS WITH u AS (SELECT id FROM t) SELECT * FROM u`)
	assert.Equal(t, []string{"t"}, st.(*CreateView).Def.Reads, "a WITH query is not a relation the view reads")

	cat := viewCatalog{fakeCatalog: testCatalog, views: map[string]*ViewDef{"v": &cv.Def}}
	stmts, err := Parse(`SELECT x.a, x.n FROM v AS x WHERE x."?column?" > 0`, cat)
	require.NoError(t, err)
	root, names := reread(t, stmts[0].(*Query).Plan)
	assert.Equal(t, []string{"a", "n"}, names)
	var tables []string
	var walk func(r plan.Rel)
	walk = func(r plan.Rel) {
		if nr, ok := r.(*plan.NamedTableReadRel); ok {
			tables = append(tables, nr.Names()...)
		}
		for _, in := range r.GetInputs() {
			walk(in)
		}
	}
	walk(root)
	assert.Equal(t, []string{"t"}, tables, "the view's SELECT reads t")

	for _, c := range []struct {
		q    string
		want error
		msg  string
	}{
		{`INSERT INTO v VALUES (1, 'a', 2)`, ErrUnsupported, `cannot change view "v"`},
		{`UPDATE v SET n = 'b'`, ErrUnsupported, `cannot change view "v"`},
		{`CREATE VIEW p AS SELECT id FROM t WHERE id = :x`, ErrParam, "parameters"},
		{`CREATE VIEW p (a, b) AS SELECT id FROM t`, ErrInvalid, "more column names than columns"},
		{`CREATE VIEW p AS SELECT id, name AS id FROM t`, ErrInvalid, `column "id" specified more than once`},
		{`CREATE VIEW p AS SELECT * FROM nope`, ErrUnknownTable, `"nope"`},
		{`SELECT nope FROM v`, ErrUnknownColumn, `"nope"`},
	} {
		_, err := Parse(c.q, cat)
		assert.ErrorIs(t, err, c.want, c.q)
		assert.ErrorContains(t, err, c.msg, c.q)
	}
	loop := viewCatalog{fakeCatalog: testCatalog, views: map[string]*ViewDef{
		"l": {Name: "l", SQL: "SELECT x FROM l", Columns: []string{"x"}, Types: []string{"bigint"}}}}
	_, err = Parse(`SELECT * FROM l`, loop)
	assert.ErrorContains(t, err, "infinite recursion")
}
