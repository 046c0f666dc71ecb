package sql

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/stablerow/stablerow/fileio"
)

// CopyFrom is COPY table FROM 'file' [WITH (options)]: the file's columns,
// in order, are the table's user columns.
type CopyFrom struct {
	Table   string
	File    string
	Options fileio.Options
}

// CopyTo is COPY table | (query) TO 'file' [WITH (options)].
type CopyTo struct {
	Source  *Query
	File    string
	Options fileio.Options
}

// CreateTableAs is CREATE TABLE [IF NOT EXISTS] name AS query: the table's
// columns are the query's output columns (their engine types, nullable).
type CreateTableAs struct {
	Name        string
	Source      *Query
	IfNotExists bool
	// Declared[i] is output column i's declared SQL type when its Arrow
	// type alone does not say it ("varchar(5)", "char(3)", "varchar"; the
	// table's SQLTypeKey spelling), else "". PostgreSQL's CREATE TABLE AS
	// keeps a varchar(n) column's typmod through a projection, so a later
	// INSERT of a longer string fails as it would on the source table.
	Declared []string
}

func (*CopyFrom) statement()      {}
func (*CopyTo) statement()        {}
func (*CreateTableAs) statement() {}

func (l *lowerer) copyStmt(c *pg_query.CopyStmt) (Statement, error) {
	switch {
	case c.IsProgram:
		return nil, fmt.Errorf("%w: COPY ... PROGRAM", ErrUnsupported)
	case c.Filename == "":
		return nil, fmt.Errorf("%w: COPY to or from STDIN/STDOUT (name a file)", ErrUnsupported)
	case len(c.Attlist) > 0:
		return nil, fmt.Errorf("%w: COPY with a column list", ErrUnsupported)
	case c.WhereClause != nil:
		return nil, fmt.Errorf("%w: COPY ... WHERE", ErrUnsupported)
	}
	opt, err := copyOptions(c.Options)
	if err != nil {
		return nil, err
	}
	if opt, err = opt.Resolve(c.Filename); err != nil {
		return nil, err
	}
	if c.IsFrom {
		name, err := l.tableName(c.Relation)
		if err != nil {
			return nil, err
		}
		if _, err := l.cat.TableSchema(name); err != nil {
			return nil, fmt.Errorf("sql: table %q%s: %w", name, l.src.at(c.Relation.Location), err)
		}
		return &CopyFrom{Table: name, File: c.Filename, Options: opt}, nil
	}
	var q *Query
	if c.Query != nil {
		sel := c.Query.GetSelectStmt()
		if sel == nil {
			return nil, fmt.Errorf("%w: COPY (%s) TO: only a SELECT", ErrUnsupported, nodeName(c.Query))
		}
		if q, err = l.selectQuery(sel); err != nil {
			return nil, err
		}
	} else {
		name, err := l.tableName(c.Relation)
		if err != nil {
			return nil, err
		}
		// COPY t TO is COPY (SELECT * FROM t) TO: the user columns.
		stmts, err := Parse("SELECT * FROM "+quoteIdent(name), l.cat)
		if err != nil {
			return nil, err
		}
		q = stmts[0].(*Query)
	}
	return &CopyTo{Source: q, File: c.Filename, Options: opt}, nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// copyOptions reads PostgreSQL's COPY option list: FORMAT, HEADER,
// DELIMITER, NULL, and stablerow's TRAILING_DELIMITER and AUTO_DETECT.
// Any other option is refused by name.
func copyOptions(opts []*pg_query.Node) (fileio.Options, error) {
	var o fileio.Options
	seen := map[string]bool{}
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			return o, fmt.Errorf("%w: COPY option %s", ErrSyntax, nodeName(n))
		}
		name := strings.ToLower(d.Defname)
		if seen[name] {
			return o, fmt.Errorf("%w: conflicting or redundant options: %s", ErrInvalid, name)
		}
		seen[name] = true
		val, isSet := defString(d.Arg)
		switch name {
		case "format":
			o.Format = fileio.Format(strings.ToLower(val))
		case "header":
			b, ok := parseBool(val, isSet)
			if !ok {
				return o, fmt.Errorf("%w: header requires a Boolean value", ErrInvalid)
			}
			o.Header = b
		case "delimiter":
			if utf8.RuneCountInString(val) != 1 {
				return o, fmt.Errorf("%w: COPY delimiter must be a single one-byte character", ErrInvalid)
			}
			o.Delimiter, _ = utf8.DecodeRuneInString(val)
		case "null":
			o.Null = val
		case "trailing_delimiter", "auto_detect":
			// Not PostgreSQL's: TPC-H's .tbl lines end with the delimiter
			// (fileio.Options.TrailingDelimiter), and AUTO_DETECT (DuckDB's
			// name) tells a header line from data by the table's types.
			b, ok := parseBool(val, isSet)
			if !ok {
				return o, fmt.Errorf("%w: %s requires a Boolean value", ErrInvalid, name)
			}
			if name == "auto_detect" {
				o.DetectHeader = b
			} else {
				o.TrailingDelimiter = b
			}
		default:
			return o, fmt.Errorf("%w: COPY option %q", ErrUnsupported, d.Defname)
		}
	}
	return o, nil
}

// defString is an option argument as text; isSet is false when the option
// was written without one (HEADER alone means true).
func defString(n *pg_query.Node) (string, bool) {
	switch {
	case n == nil:
		return "", false
	case n.GetString_() != nil:
		return n.GetString_().Sval, true
	case n.GetInteger() != nil:
		return strconv.Itoa(int(n.GetInteger().Ival)), true
	case n.GetBoolean() != nil:
		return strconv.FormatBool(n.GetBoolean().Boolval), true
	case n.GetFloat() != nil:
		return n.GetFloat().Fval, true
	}
	return nodeName(n), true
}

func parseBool(s string, isSet bool) (bool, bool) {
	if !isSet {
		return true, true
	}
	switch strings.ToLower(s) {
	case "true", "on", "1":
		return true, true
	case "false", "off", "0":
		return false, true
	}
	return false, false
}

func (l *lowerer) createTableAs(c *pg_query.CreateTableAsStmt) (Statement, error) {
	if c.Objtype != pg_query.ObjectType_OBJECT_TABLE || c.IsSelectInto {
		return nil, fmt.Errorf("%w: CREATE %s AS / SELECT INTO", ErrUnsupported, strings.TrimPrefix(c.Objtype.String(), "OBJECT_"))
	}
	in := c.Into
	switch {
	case in == nil || in.Rel == nil:
		return nil, fmt.Errorf("%w: CREATE TABLE AS without a name", ErrSyntax)
	case len(in.ColNames) > 0:
		return nil, fmt.Errorf("%w: CREATE TABLE AS with a column list", ErrUnsupported)
	case in.SkipData:
		return nil, fmt.Errorf("%w: WITH NO DATA", ErrUnsupported)
	case in.Rel.Relpersistence != "" && in.Rel.Relpersistence != "p":
		return nil, fmt.Errorf("%w: TEMPORARY or UNLOGGED tables", ErrUnsupported)
	case len(in.Options) > 0 || in.TableSpaceName != "" || in.AccessMethod != "":
		return nil, fmt.Errorf("%w: table options", ErrUnsupported)
	}
	name, err := l.tableName(in.Rel)
	if err != nil {
		return nil, err
	}
	sel := c.Query.GetSelectStmt()
	if sel == nil {
		return nil, fmt.Errorf("%w: CREATE TABLE AS %s", ErrUnsupported, nodeName(c.Query))
	}
	rel, names, err := l.selectStmt(sel, nil)
	if err != nil {
		return nil, err
	}
	// The declared types are read off the lowered relation: the Arrow
	// schema the engine builds from the plan has plain strings.
	fields := rel.RecordType().Types()
	declared := make([]string, len(fields))
	for i, t := range fields {
		declared[i] = kindOf(t).Declared()
	}
	q, err := l.query(rel, names)
	if err != nil {
		return nil, err
	}
	return &CreateTableAs{Name: name, Source: q, IfNotExists: c.IfNotExists, Declared: declared}, nil
}
