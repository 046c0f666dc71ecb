// Package sqltype is the SQL front end's type system: the kinds of value
// the PostgreSQL dialect names (smallint .. numeric(p, s), text,
// varchar(n), char(n), boolean, date, timestamp), how each maps to its
// Substrait type (the lowered plan's) and its Arrow type (a table's
// column), how PostgreSQL's operator resolution widens numeric operands
// (Promote), and how a catalog column's declared type is read back
// (OfField). It knows nothing of the parse tree or the lowering: sql
// resolves type names and casts over it.
package sqltype
