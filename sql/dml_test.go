package sql

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"

	sqlvalue "github.com/stablerow/stablerow/value"
)

func TestInsertValues(t *testing.T) {
	ins, ok := parseOne(t, "INSERT INTO t (score, id) VALUES (1, '7'), (-2.5, NULL), (:s, 3 + 1), (1, 9223372036854775807 + 1)").(*Insert)
	require.True(t, ok)
	assert.Equal(t, "t", ins.Table)
	assert.Equal(t, []string{"score", "id"}, ins.Columns)
	assert.Equal(t, []string{"s"}, ins.Source.ParamNames)
	root, names := reread(t, ins.Source.Plan)
	assert.Equal(t, []string{"score", "id"}, names)
	vt, ok := root.(*plan.VirtualTableReadRel)
	require.True(t, ok, "%T", root)
	assert.Equal(t, "fp64?,i64?", typeList(vt.BaseSchema().Struct.Types))
	rows := vt.Values()
	require.Len(t, rows, 4)
	assert.Equal(t, 1.0, litValue(t, rows[0][0]), "1 cast to double at plan time")
	assert.Equal(t, int64(7), litValue(t, rows[0][1]), "'7' parsed as bigint")
	assert.Equal(t, -2.5, litValue(t, rows[1][0]))
	assert.Nil(t, litValue(t, rows[1][1]))
	p, ok := rows[2][0].(*expr.DynamicParameter)
	require.True(t, ok, "%v", rows[2][0])
	assert.Equal(t, uint32(1), p.ParameterReference)
	assert.Equal(t, "fp64?", p.OutputType.String(), ":s takes the column type")
	assert.Equal(t, int64(4), litValue(t, rows[2][1]), "constant arithmetic is folded")
	c, ok := rows[3][1].(*expr.Cast)
	require.True(t, ok, "a non-nullable expression is made nullable by a cast: %v", rows[3][1])
	fn(t, c.Input, "add") // overflow is left to run time

	// All columns, and fewer values than columns (Postgres fills NULLs).
	ins = parseOne(t, "INSERT INTO t VALUES (1, 'a', 2)").(*Insert)
	assert.Nil(t, ins.Columns)
	ins = parseOne(t, "INSERT INTO t VALUES (1, 5)").(*Insert)
	assert.Equal(t, []string{"id", "name"}, ins.Columns)
	root, _ = reread(t, ins.Source.Plan)
	assert.Equal(t, "5", litValue(t, root.(*plan.VirtualTableReadRel).Values()[0][1]), "assignment casts bigint to text")
}

func TestInsertSelect(t *testing.T) {
	ins := parseOne(t, "INSERT INTO t (id, score) SELECT g, g FROM generate_series(CAST(1 AS BIGINT), 1000) AS g").(*Insert)
	assert.Equal(t, []string{"id", "score"}, ins.Columns)
	root, names := reread(t, ins.Source.Plan)
	assert.Equal(t, []string{"id", "score"}, names)
	cast := root.(*plan.ProjectRel)
	assert.Equal(t, []int32{2, 3}, cast.OutputMapping())
	assert.Equal(t, int32(0), fieldIndex(t, cast.Expressions()[0]))
	c, ok := cast.Expressions()[1].(*expr.Cast)
	require.True(t, ok, "bigint -> double cast for score")
	assert.Equal(t, kindF64, kindOf(c.Type))
	inner := cast.Input().(*plan.ProjectRel)
	d := detailOf(t, inner.Input())
	assert.Equal(t, "stablerow.generate_series", d["relation"])

	// Matching types need no cast projection.
	ins = parseOne(t, "INSERT INTO u SELECT id, true FROM t").(*Insert)
	root, _ = reread(t, ins.Source.Plan)
	_, ok = root.(*plan.ProjectRel).Input().(*plan.NamedTableReadRel)
	assert.True(t, ok)
}

func TestDelete(t *testing.T) {
	del := parseOne(t, "DELETE FROM t WHERE id > 3").(*Delete)
	assert.Equal(t, "t", del.Table)
	root, names := reread(t, del.Rows.Plan)
	assert.Equal(t, []string{"_rowid"}, names)
	proj := root.(*plan.ProjectRel)
	assert.Equal(t, int32(3), fieldIndex(t, proj.Expressions()[0]))
	fn(t, proj.Input().(*plan.FilterRel).Condition(), "gt")

	del = parseOne(t, "DELETE FROM t").(*Delete)
	root, _ = reread(t, del.Rows.Plan)
	_, ok := root.(*plan.ProjectRel).Input().(*plan.NamedTableReadRel)
	assert.True(t, ok)
}

func TestUpdate(t *testing.T) {
	up := parseOne(t, "UPDATE t SET score = id * 2, name = NULL WHERE id = :id").(*Update)
	assert.Equal(t, "t", up.Table)
	assert.Equal(t, []string{"id"}, up.Rows.ParamNames)
	root, names := reread(t, up.Rows.Plan)
	assert.Equal(t, []string{"_rowid", "id", "name", "score"}, names)
	proj := root.(*plan.ProjectRel)
	es := proj.Expressions()
	assert.Equal(t, int32(3), fieldIndex(t, es[0]))
	assert.Equal(t, int32(0), fieldIndex(t, es[1]), "untouched column passes through")
	assert.Nil(t, litValue(t, es[2]))
	assert.Equal(t, kindString, kindOf(es[2].GetType()))
	c := es[3].(*expr.Cast)
	assert.Equal(t, kindF64, kindOf(c.Type), "SET value cast to the column type")
	fn(t, c.Input, "multiply")
	fn(t, proj.Input().(*plan.FilterRel).Condition(), "equal")
}

func TestCreateTable(t *testing.T) {
	ct := parseOne(t, "CREATE TABLE IF NOT EXISTS Items (id BIGINT NOT NULL, n INT, s VARCHAR(10), x DOUBLE PRECISION, r REAL, b BOOLEAN NULL, \"Quoted\" TEXT)").(*CreateTable)
	assert.Equal(t, "items", ct.Name)
	assert.True(t, ct.IfNotExists)
	want := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, // INT is int4, stored as such
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true,
			Metadata: arrow.NewMetadata([]string{sqlvalue.SQLTypeKey}, []string{"varchar(10)"})},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "r", Type: arrow.PrimitiveTypes.Float32, Nullable: true}, // REAL is float4
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "Quoted", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	assert.True(t, want.Equal(ct.Schema), "got %v", ct.Schema)
}

func TestCreateIndex(t *testing.T) {
	ix := parseOne(t, "CREATE INDEX ON t (_ROWID)").(*CreateIndex)
	assert.Equal(t, CreateIndex{Name: "t__rowid_idx", Table: "t", Column: "_rowid", Keys: []IndexKey{{Column: "_rowid"}}, Method: "btree"}, *ix)
	ix = parseOne(t, "CREATE INDEX IF NOT EXISTS by_name ON t USING BTREE (name)").(*CreateIndex)
	assert.Equal(t, CreateIndex{Name: "by_name", Table: "t", Column: "name", Keys: []IndexKey{{Column: "name"}}, Method: "btree", IfNotExists: true}, *ix)
}

// TestCreateIndexKeys: several key columns, DESC and NULLS FIRST/LAST
// with PostgreSQL's defaults (NULLS FIRST exactly when DESC), UNIQUE, and
// the default name joining the columns.
func TestCreateIndexKeys(t *testing.T) {
	ix := parseOne(t, "CREATE UNIQUE INDEX ON t (id, name DESC, id ASC NULLS FIRST, name DESC NULLS LAST)").(*CreateIndex)
	assert.Equal(t, CreateIndex{Name: "t_id_name_id_name_idx", Table: "t", Column: "id", Unique: true, Method: "btree",
		Keys: []IndexKey{{Column: "id"}, {Column: "name", Desc: true, NullsFirst: true}, {Column: "id", NullsFirst: true}, {Column: "name", Desc: true}}}, *ix)
	_, err := Parse("CREATE INDEX ON t (nope, id)", testCatalog)
	assert.ErrorIs(t, err, ErrUnknownColumn)
	_, err = Parse("CREATE INDEX ON t (id text_pattern_ops)", testCatalog)
	assert.ErrorIs(t, err, ErrUnsupported)
}

func TestExplainAndScripts(t *testing.T) {
	stmts, err := Parse("EXPLAIN SELECT 1; EXPLAIN ANALYZE SELECT id FROM t;\n-- trailing comment\n", testCatalog)
	require.NoError(t, err)
	require.Len(t, stmts, 2)
	assert.True(t, stmts[0].(*Query).Explain)
	assert.False(t, stmts[0].(*Query).Analyze)
	assert.True(t, stmts[1].(*Query).Explain)
	assert.True(t, stmts[1].(*Query).Analyze)

	for q, want := range map[string]bool{"EXPLAIN (ANALYZE false) SELECT 1": false, "EXPLAIN (ANALYZE) SELECT 1": true, "EXPLAIN (ANALYZE on) SELECT 1": true} {
		assert.Equal(t, want, parseOne(t, q).(*Query).Analyze, q)
	}
	_, err = Parse("EXPLAIN (ANALYZE maybe) SELECT 1", testCatalog)
	assert.ErrorIs(t, err, ErrInvalid)

	stmts, err = Parse("", testCatalog)
	require.NoError(t, err)
	assert.Empty(t, stmts)
}

func TestDrop(t *testing.T) {
	assert.Equal(t, &DropTable{Name: "t"}, parseOne(t, "DROP TABLE t"))
	assert.Equal(t, &DropTable{Name: "gone", IfExists: true}, parseOne(t, "DROP TABLE IF EXISTS public.gone"))
	assert.Equal(t, &DropIndex{Name: "t_id_idx"}, parseOne(t, "DROP INDEX t_id_idx"))
}

func TestMaintenance(t *testing.T) {
	// As in PostgreSQL: plain VACUUM reclaims, FULL rewrites, no table
	// name means every table, and a list names several.
	for _, c := range []struct {
		sql  string
		want *Vacuum
	}{
		{"VACUUM t", &Vacuum{Tables: []string{"t"}}},
		{"VACUUM", &Vacuum{}},
		{"VACUUM t, public.u", &Vacuum{Tables: []string{"t", "u"}}},
		{"VACUUM FULL public.t", &Vacuum{Tables: []string{"t"}, Full: true}},
		{"VACUUM FULL", &Vacuum{Full: true}},
		{"VACUUM (FULL) t", &Vacuum{Tables: []string{"t"}, Full: true}},
		{"VACUUM (FULL true) t", &Vacuum{Tables: []string{"t"}, Full: true}},
		{"VACUUM (FULL ON) t", &Vacuum{Tables: []string{"t"}, Full: true}},
		{"VACUUM (FULL 1) t", &Vacuum{Tables: []string{"t"}, Full: true}},
		{"VACUUM (FULL false) t", &Vacuum{Tables: []string{"t"}}},
		{"VACUUM (FULL off) t", &Vacuum{Tables: []string{"t"}}},
		{"VACUUM (FULL 0) t", &Vacuum{Tables: []string{"t"}}},
	} {
		assert.Equal(t, c.want, parseOne(t, c.sql), c.sql)
	}
	assert.Equal(t, &Cluster{Table: "t", Index: "t_id_idx"}, parseOne(t, "CLUSTER t USING t_id_idx"))
	assert.Equal(t, &Reindex{Index: "rid"}, parseOne(t, "REINDEX INDEX rid"))
	assert.Equal(t, &Reindex{Table: "t"}, parseOne(t, "REINDEX TABLE t"))
	assert.Equal(t, &Analyze{Tables: []string{"t"}}, parseOne(t, "ANALYZE t"))
	assert.Equal(t, &Analyze{}, parseOne(t, "ANALYZE"))
	for _, c := range []struct {
		sql  string
		want error
		text string
	}{
		{"ANALYZE t (id)", ErrUnsupported, "ANALYZE with a column list"},
		{"ANALYZE VERBOSE t", ErrUnsupported, "ANALYZE option VERBOSE"},
		{"ANALYZE nosuch", ErrUnknownTable, "nosuch"},
		{"VACUUM ANALYZE t", ErrUnsupported, "VACUUM option ANALYZE"},
		{"VACUUM VERBOSE t", ErrUnsupported, "VACUUM option VERBOSE"},
		{"VACUUM (FREEZE) t", ErrUnsupported, "VACUUM option FREEZE"},
		{"VACUUM (FULL 2) t", ErrSyntax, "FULL requires a Boolean value"},
		{"VACUUM (FULL maybe) t", ErrSyntax, "FULL requires a Boolean value"},
		{"VACUUM t (k)", ErrUnsupported, "column list"},
		{"VACUUM other.t", ErrUnsupported, "schema-qualified"},
		{"VACUUM nope", nil, "nope"},
		{"VACUUM t, nope", nil, "nope"},
		{"CLUSTER t", ErrUnsupported, "USING"},
		{"REINDEX DATABASE d", ErrUnsupported, "REINDEX"},
	} {
		_, err := Parse(c.sql, testCatalog)
		require.Error(t, err, c.sql)
		if c.want != nil {
			assert.ErrorIs(t, err, c.want, c.sql)
		}
		assert.Contains(t, err.Error(), c.text, c.sql)
	}
}

// TestCreateTableConstraints: PRIMARY KEY and UNIQUE, on a column or the
// table, become unique indexes named as PostgreSQL names them (the
// constraint's name, <table>_pkey, <table>_<columns>_key with a number
// added to a name taken); a primary key's columns are NOT NULL; two
// primary keys, an unknown key column and DEFERRABLE are refused.
func TestCreateTableConstraints(t *testing.T) {
	ct := parseOne(t, "CREATE TABLE p (id INT PRIMARY KEY, code TEXT UNIQUE, a INT, b INT, UNIQUE (a, B), CONSTRAINT named UNIQUE (b), UNIQUE (code))").(*CreateTable)
	u := func(name string, cols ...string) *CreateIndex {
		keys := make([]IndexKey, len(cols))
		for i, c := range cols {
			keys[i] = IndexKey{Column: c}
		}
		return &CreateIndex{Name: name, Table: "p", Column: cols[0], Keys: keys, Unique: true, Method: "btree"}
	}
	assert.Equal(t, []*CreateIndex{u("p_pkey", "id"), u("p_code_key", "code"), u("p_a_b_key", "a", "b"), u("named", "b"), u("p_code_key1", "code")}, ct.Indexes)
	assert.False(t, ct.Schema.Field(0).Nullable, "a primary key column is NOT NULL")
	assert.True(t, ct.Schema.Field(1).Nullable)
	assert.Equal(t, "p_pkey", ct.PrimaryKey)
	ct = parseOne(t, "CREATE TABLE q (a INT, b TEXT, PRIMARY KEY (b, a))").(*CreateTable)
	assert.Equal(t, "q_pkey", ct.Indexes[0].Name)
	assert.Equal(t, "q_pkey", ct.PrimaryKey)
	assert.Empty(t, parseOne(t, "CREATE TABLE q (a INT UNIQUE)").(*CreateTable).PrimaryKey)
	assert.False(t, ct.Schema.Field(0).Nullable || ct.Schema.Field(1).Nullable)
	for q, want := range map[string]error{
		"CREATE TABLE q (a INT PRIMARY KEY, b INT, PRIMARY KEY (b))": ErrInvalid,
		"CREATE TABLE q (a INT, UNIQUE (nope))":                      ErrUnknownColumn,
		"CREATE TABLE q (a INT UNIQUE DEFERRABLE)":                   ErrUnsupported,
	} {
		_, err := Parse(q, testCatalog)
		assert.ErrorIs(t, err, want, q)
	}
}

// TestInsertOnConflict: ON CONFLICT DO NOTHING with no target, a column
// list or a constraint name; a WHERE on the target and unknown columns
// are refused (DO UPDATE: upsert_test.go).
func TestInsertOnConflict(t *testing.T) {
	ins := parseOne(t, "INSERT INTO t (id) VALUES (1) ON CONFLICT DO NOTHING").(*Insert)
	assert.Equal(t, &OnConflict{}, ins.OnConflict)
	ins = parseOne(t, "INSERT INTO t (id) VALUES (1) ON CONFLICT (NAME, id) DO NOTHING").(*Insert)
	assert.Equal(t, &OnConflict{Columns: []string{"name", "id"}}, ins.OnConflict)
	ins = parseOne(t, "INSERT INTO t (id) VALUES (1) ON CONFLICT ON CONSTRAINT t_pkey DO NOTHING").(*Insert)
	assert.Equal(t, &OnConflict{Constraint: "t_pkey"}, ins.OnConflict)
	assert.Nil(t, parseOne(t, "INSERT INTO t (id) VALUES (1)").(*Insert).OnConflict)
	for q, want := range map[string]error{
		"INSERT INTO t (id) VALUES (1) ON CONFLICT (id) WHERE id > 0 DO NOTHING": ErrUnsupported,
		"INSERT INTO t (id) VALUES (1) ON CONFLICT (nope) DO NOTHING":            ErrUnknownColumn,
	} {
		_, err := Parse(q, testCatalog)
		assert.ErrorIs(t, err, want, q)
	}
}
