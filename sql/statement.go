package sql

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// Catalog is what the SQL front end needs to know about tables.
type Catalog interface {
	// TableSchema returns the table's full Arrow schema: the user columns,
	// then _rowid and _rowaddr (uint64). An unknown table gives an error
	// wrapping ErrUnknownTable.
	TableSchema(name string) (*arrow.Schema, error)
}

// TableNamer is a Catalog that wants to know, before a statement is
// lowered, every name the statement could read as a table (each FROM,
// JOIN, INSERT, UPDATE, DELETE or COPY relation, CTE names included), so
// it can pin exactly those tables' snapshots at once (the engine: a
// statement over one table opens that table alone; one over several
// pins them together so it never holds half of a transaction).
type TableNamer interface {
	StatementTables(names []string)
}

// TableLister is a Catalog that can list its tables' names: an unknown
// table's error then offers the closest one (did you mean "sales"?).
type TableLister interface {
	TableNames() []string
}

// Statement is one parsed and lowered SQL statement: *Query, *CreateTable,
// *Insert, *Delete, *Update, *CreateIndex, *DropTable, *DropIndex, *Vacuum,
// *Cluster, *Reindex, *CopyFrom, *CopyTo, *CreateTableAs (copy.go), *Set
// (set.go) or *Transaction (transaction.go). The set is closed.
type Statement interface{ statement() }

// Query is a SELECT (or EXPLAIN [ANALYZE] SELECT) lowered to Substrait.
type Query struct {
	// Plan has one root whose names are the output column names.
	Plan *substraitpb.Plan
	// ParamNames[k-1] is the name written for $k (":ids" gives "ids"), or ""
	// when the text used $k itself. len(ParamNames) is the number of
	// parameters the plan references; every one of 1..len is used.
	ParamNames []string
	// Explain and Analyze are set by EXPLAIN [ANALYZE] <select>; Costs
	// by EXPLAIN (COSTS): each node's estimated rows are shown.
	Explain, Analyze, Costs bool
}

// CreateTable is CREATE TABLE [IF NOT EXISTS] name (col type [NOT NULL], ...).
type CreateTable struct {
	Name string
	// Schema holds the user columns only; the engine adds _rowid/_rowaddr.
	Schema      *arrow.Schema
	IfNotExists bool
	// Indexes are the unique indexes of its PRIMARY KEY and UNIQUE
	// constraints (constraint.go), created with the table.
	Indexes []*CreateIndex
	// PrimaryKey names the index of Indexes that backs the PRIMARY KEY
	// (empty: none), which the catalog records as the table's.
	PrimaryKey string
	// Checks are its CHECK constraints (check.go), in the order declared.
	Checks []Check
}

// Insert is INSERT INTO table [(cols)] VALUES ... | SELECT ...
type Insert struct {
	Table string
	// Columns are the target columns in source order (spelled as in the
	// table schema); nil means all user columns in table order.
	Columns []string
	// Source yields one row per inserted row, one column per target column,
	// each already cast to the target column's type.
	Source *Query
	// OnConflict, when set, is ON CONFLICT [target] DO NOTHING or DO
	// UPDATE.
	OnConflict *OnConflict
	// Checks name the table's CHECK constraints in the order tested;
	// when there are any, Source yields every user column (Columns is
	// nil) and then one boolean column per check, the check's value over
	// the row (check.go), which the engine tests and drops.
	Checks []string
}

// OnConflict is ON CONFLICT [(columns) | ON CONSTRAINT name] DO NOTHING:
// rows whose key in an arbiter unique index is already held, by a row
// of the table or one the statement inserted before, are skipped. With
// neither Columns nor Constraint every unique index is an arbiter. With
// Update (DO UPDATE, upsert.go) the row holding the key is updated
// instead.
type OnConflict struct {
	Columns    []string // spelled as in the table schema
	Constraint string
	Update     *ConflictUpdate
}

// Delete is DELETE FROM table [WHERE cond].
type Delete struct {
	Table string
	// Rows is SELECT _rowid FROM table [WHERE cond].
	Rows *Query
}

// Update is UPDATE table SET col = expr, ... [WHERE cond].
type Update struct {
	Table string
	// Rows is SELECT _rowid, <every user column in table order, with the SET
	// expressions applied and cast to the column type> FROM table [WHERE cond].
	Rows *Query
	// Checks name the table's CHECK constraints in the order tested; Rows
	// then ends with one boolean column per check over the new row.
	Checks []string
}

// CreateIndex is CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON table
// [USING btree] (column [ASC | DESC] [NULLS FIRST | LAST], ...).
type CreateIndex struct {
	// Name is the index name; when omitted it is Postgres' default
	// "<table>_<column>[_<column>...]_idx". Column is the first key column.
	Name, Table, Column string
	// Keys are the key columns in order, each with its order and NULLs
	// placement as PostgreSQL resolves the defaults (ASC NULLS LAST, DESC
	// NULLS FIRST).
	Keys   []IndexKey
	Unique bool
	// Method is the access method, always "btree" for now.
	Method      string
	IfNotExists bool
}

// IndexKey is one key column of CREATE INDEX.
type IndexKey struct {
	Column     string
	Desc       bool
	NullsFirst bool
}

// DropTable is DROP TABLE [IF EXISTS] name. Existence is the engine's to
// check (IF EXISTS makes a missing table a no-op).
type DropTable struct {
	Name     string
	IfExists bool
}

// DropIndex is DROP INDEX [IF EXISTS] name.
type DropIndex struct {
	Name     string
	IfExists bool
}

func (*Query) statement()       {}
func (*CreateTable) statement() {}
func (*Insert) statement()      {}
func (*Delete) statement()      {}
func (*Update) statement()      {}
func (*CreateIndex) statement() {}
func (*DropTable) statement()   {}
func (*DropIndex) statement()   {}
