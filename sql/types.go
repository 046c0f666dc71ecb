package sql

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/types"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// kindID is one of the SQL types the front end knows.
type kindID uint8

const (
	idUnknown kindID = iota
	idI16
	idI32
	idI64
	idF32
	idF64
	idString  // text
	idVarchar // character varying(n); n == 0: unbounded
	idChar    // character(n), blank-padded
	idBool
	idDate
	idTimestamp // timestamp without time zone, microseconds
	idNumeric   // numeric(n, s): precision n (1..38), scale s
)

// kind is a SQL type: its id and, for varchar(n) and char(n), the declared
// length n. It is comparable, so kinds compare with ==.
type kind struct {
	id kindID
	n  int32
	s  int32 // numeric's scale
}

var (
	kindUnknown   = kind{}
	kindI16       = kind{id: idI16}
	kindI32       = kind{id: idI32}
	kindI64       = kind{id: idI64}
	kindF32       = kind{id: idF32}
	kindF64       = kind{id: idF64}
	kindString    = kind{id: idString}
	kindBool      = kind{id: idBool}
	kindDate      = kind{id: idDate}
	kindTimestamp = kind{id: idTimestamp}
)

func kindVarchar(n int32) kind { return kind{id: idVarchar, n: n} }
func kindChar(n int32) kind    { return kind{id: idChar, n: n} }
func kindNumeric(p, s int32) kind {
	return kind{id: idNumeric, n: min(max(p, 1), sqlvalue.MaxDecimalPrecision), s: min(max(s, 0), sqlvalue.MaxDecimalPrecision)}
}

// String is PostgreSQL's name of the type, as its messages spell it.
func (k kind) String() string {
	switch k.id {
	case idI16:
		return "smallint"
	case idI32:
		return "integer"
	case idI64:
		return "bigint"
	case idF32:
		return "real"
	case idF64:
		return "double precision"
	case idString:
		return "text"
	case idVarchar:
		if k.n == 0 {
			return "character varying"
		}
		return fmt.Sprintf("character varying(%d)", k.n)
	case idChar:
		return fmt.Sprintf("character(%d)", k.n)
	case idBool:
		return "boolean"
	case idDate:
		return "date"
	case idTimestamp:
		return "timestamp without time zone"
	case idNumeric:
		return fmt.Sprintf("numeric(%d,%d)", k.n, k.s)
	}
	return "unknown"
}

// substraitName is the element_type spelling of the UNNEST detail (substrait.md §4).
func (k kind) substraitName() string {
	switch k {
	case kindI64:
		return "i64"
	case kindF64:
		return "fp64"
	case kindString:
		return "string"
	case kindBool:
		return "bool"
	}
	return ""
}

func (k kind) integer() bool { return k.id == idI16 || k.id == idI32 || k.id == idI64 }
func (k kind) float() bool   { return k.id == idF32 || k.id == idF64 }
func (k kind) numeric() bool { return k.integer() || k.float() || k.id == idNumeric }

// digits is how many decimal digits an integer kind's values have at most.
func (k kind) digits() int32 {
	return map[kindID]int32{idI16: 5, idI32: 10, idI64: 19}[k.id]
}

// asNumeric is the numeric holding every value of k exactly.
func (k kind) asNumeric() kind {
	if k.integer() {
		return kindNumeric(k.digits(), 0)
	}
	return k
}

// stringy: text, varchar(n) and char(n), which meet at text.
func (k kind) stringy() bool { return k.id == idString || k.id == idVarchar || k.id == idChar }

// datetime: date and timestamp.
func (k kind) datetime() bool { return k.id == idDate || k.id == idTimestamp }

// ordered: the types with a btree ordering (GREATEST, LEAST).
func (k kind) ordered() bool { return k.numeric() || k.stringy() || k.datetime() || k.id == idBool }

// rank orders the numeric kinds by PostgreSQL's implicit casts: smallint
// widens to integer, to bigint, to numeric, to real, to double precision.
func (k kind) rank() int {
	switch k.id {
	case idI16:
		return 1
	case idI32:
		return 2
	case idI64:
		return 3
	case idNumeric:
		return 4
	case idF32:
		return 5
	case idF64:
		return 6
	}
	return 0
}

// promote is the kind two numeric operands meet at, as PostgreSQL's
// operator resolution picks it: the wider integer for two integers
// (int2 + int4 is int4), real for two reals, double precision as soon as
// a float meets anything else (int4 + real is double precision: there
// is no int4-real operator and the float8 one is preferred).
func promote(a, b kind) kind {
	switch {
	case a == b:
		return a
	case a.integer() && b.integer():
		if a.rank() > b.rank() {
			return a
		}
		return b
	case a.float() || b.float():
		return kindF64
	}
	// numeric meets an integer or a numeric at the numeric that holds
	// both exactly (the comparison's common type).
	a, b = a.asNumeric(), b.asNumeric()
	sc := max(a.s, b.s)
	return kindNumeric(max(a.n-a.s, b.n-b.s)+sc, sc)
}

func nullability(nullable bool) types.Nullability {
	if nullable {
		return types.NullabilityNullable
	}
	return types.NullabilityRequired
}

// typ is the Substrait type of kind k.
func (k kind) typ(nullable bool) types.Type {
	n := nullability(nullable)
	switch k.id {
	case idI16:
		return &types.Int16Type{Nullability: n}
	case idI32:
		return &types.Int32Type{Nullability: n}
	case idI64:
		return &types.Int64Type{Nullability: n}
	case idF32:
		return &types.Float32Type{Nullability: n}
	case idF64:
		return &types.Float64Type{Nullability: n}
	case idString:
		return &types.StringType{Nullability: n}
	case idVarchar:
		if k.n == 0 {
			return &types.StringType{Nullability: n}
		}
		return &types.VarCharType{Nullability: n, Length: k.n}
	case idChar:
		return &types.FixedCharType{Nullability: n, Length: k.n}
	case idBool:
		return &types.BooleanType{Nullability: n}
	case idDate:
		return &types.DateType{Nullability: n}
	case idTimestamp:
		return &types.PrecisionTimestampType{Nullability: n, Precision: types.PrecisionMicroSeconds}
	case idNumeric:
		return &types.DecimalType{Nullability: n, Precision: k.n, Scale: k.s}
	}
	return nil
}

// arrow is the Arrow type of kind k (for CREATE TABLE), and the declared
// SQL type the table records when the Arrow type does not say it.
func (k kind) arrow() (arrow.DataType, string) {
	switch k.id {
	case idI16:
		return arrow.PrimitiveTypes.Int16, ""
	case idI32:
		return arrow.PrimitiveTypes.Int32, ""
	case idI64:
		return arrow.PrimitiveTypes.Int64, ""
	case idF32:
		return arrow.PrimitiveTypes.Float32, ""
	case idF64:
		return arrow.PrimitiveTypes.Float64, ""
	case idString:
		return arrow.BinaryTypes.String, ""
	case idVarchar:
		if k.n == 0 {
			return arrow.BinaryTypes.String, "varchar"
		}
		return arrow.BinaryTypes.String, fmt.Sprintf("varchar(%d)", k.n)
	case idChar:
		return arrow.BinaryTypes.String, fmt.Sprintf("char(%d)", k.n) + sqlvalue.CharTrimmed
	case idBool:
		return arrow.FixedWidthTypes.Boolean, ""
	case idDate:
		return arrow.FixedWidthTypes.Date32, ""
	case idTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}, ""
	case idNumeric:
		return &arrow.Decimal128Type{Precision: k.n, Scale: k.s}, ""
	}
	return nil, ""
}

// kindOf classifies a Substrait type; kindUnknown for anything else.
func kindOf(t types.Type) kind {
	switch t := t.(type) {
	case *types.Int16Type:
		return kindI16
	case *types.Int32Type:
		return kindI32
	case *types.Int64Type:
		return kindI64
	case *types.Float32Type:
		return kindF32
	case *types.Float64Type:
		return kindF64
	case *types.StringType:
		return kindString
	case *types.VarCharType:
		return kindVarchar(t.Length)
	case *types.FixedCharType:
		return kindChar(t.Length)
	case *types.BooleanType:
		return kindBool
	case *types.DateType:
		return kindDate
	case *types.PrecisionTimestampType:
		if t.Precision == types.PrecisionMicroSeconds {
			return kindTimestamp
		}
	case *types.DecimalType:
		return kindNumeric(t.Precision, t.Scale)
	}
	return kindUnknown
}

func isNullable(t types.Type) bool { return t.GetNullability() != types.NullabilityRequired }

// fieldKind classifies a column of a catalog schema. The system columns are
// uint64 in Arrow and i64 in Substrait (substrait.md §3); a string column is the
// varchar(n) or char(n) its declaration recorded, else text.
func fieldKind(f arrow.Field) kind {
	switch f.Type.ID() {
	case arrow.INT64, arrow.UINT64, arrow.UINT32:
		return kindI64
	case arrow.INT32, arrow.UINT16:
		return kindI32
	case arrow.INT16, arrow.INT8, arrow.UINT8:
		return kindI16
	case arrow.FLOAT64:
		return kindF64
	case arrow.FLOAT32:
		return kindF32
	case arrow.STRING:
		if decl, ok := sqlvalue.SQLType(f); ok {
			if k, ok := parseDeclared(decl); ok {
				return k
			}
			return kindUnknown
		}
		return kindString
	case arrow.LARGE_STRING:
		return kindString
	case arrow.BOOL:
		return kindBool
	case arrow.DATE32:
		return kindDate
	case arrow.DECIMAL128:
		d := f.Type.(*arrow.Decimal128Type)
		return kindNumeric(d.Precision, d.Scale)
	case arrow.TIMESTAMP:
		if ts := f.Type.(*arrow.TimestampType); ts.Unit == arrow.Microsecond && ts.TimeZone == "" {
			return kindTimestamp
		}
	}
	return kindUnknown
}

// parseDeclared reads a declared SQL type as the table records it
// (sqlvalue.SQLTypeKey): varchar, varchar(n), char(n) trimmed and an older
// table's char(n), read stripped (engine/catalog.go).
func parseDeclared(decl string) (kind, bool) {
	decl = strings.TrimSuffix(decl, sqlvalue.CharTrimmed)
	if decl == "varchar" {
		return kindVarchar(0), true
	}
	var n int32
	if _, err := fmt.Sscanf(decl, "varchar(%d)", &n); err == nil && n > 0 {
		return kindVarchar(n), true
	}
	if _, err := fmt.Sscanf(decl, "char(%d)", &n); err == nil && n > 0 {
		return kindChar(n), true
	}
	return kindUnknown, false
}

// declared is the table's spelling of k (what kind.arrow returns).
func (k kind) declared() string { _, d := k.arrow(); return d }

// sqlTypeNames maps Postgres' internal type names (what the grammar turns
// BIGINT, DOUBLE PRECISION, VARCHAR(n) ... into) to kinds.
var sqlTypeNames = map[string]kind{
	"int8": kindI64, "bigint": kindI64,
	"int4": kindI32, "integer": kindI32, "int": kindI32,
	"int2": kindI16, "smallint": kindI16,
	"float8": kindF64, "double precision": kindF64,
	"float4": kindF32, "real": kindF32,
	"text":    kindString,
	"varchar": kindVarchar(0), "bpchar": kindChar(1), "char": kindChar(1),
	"bool": kindBool, "boolean": kindBool,
	"date": kindDate, "timestamp": kindTimestamp,
	"numeric": {id: idNumeric}, "decimal": {id: idNumeric},
}

// maxCharLength is PostgreSQL's limit on n in varchar(n) and char(n).
const maxCharLength = 10485760

// typeName resolves a TypeName node with its modifiers (VARCHAR(5),
// CHAR(3), FLOAT(24), TIMESTAMP(6)). array reports a T[] type.
func typeName(tn *pg_query.TypeName) (k kind, array bool, err error) {
	if tn == nil {
		return kindUnknown, false, fmt.Errorf("%w: missing type", ErrUnsupported)
	}
	var parts []string
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().GetSval())
	}
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		parts = parts[1:]
	}
	name := strings.Join(parts, ".")
	k, ok := sqlTypeNames[name]
	if !ok || tn.Setof || tn.PctType {
		return kindUnknown, false, fmt.Errorf("%w: type %s", ErrUnsupported, name)
	}
	if k, err = typeMods(name, k, tn.Typmods); err != nil {
		return kindUnknown, false, err
	}
	switch len(tn.ArrayBounds) {
	case 0:
	case 1:
		array = true
	default:
		return kindUnknown, false, fmt.Errorf("%w: multidimensional array type", ErrUnsupported)
	}
	return k, array, nil
}

// typeMods applies a type's modifiers: the length of varchar(n) and
// char(n), float(p) (p <= 24 is real, else double precision, as
// PostgreSQL reads it) and timestamp(6), the only precision we store.
func typeMods(name string, k kind, mods []*pg_query.Node) (kind, error) {
	if k.id == idNumeric {
		return numericMods(mods)
	}
	if len(mods) == 0 {
		if name == "float" {
			return kindF64, nil
		}
		return k, nil
	}
	if len(mods) != 1 {
		return kindUnknown, fmt.Errorf("%w: type modifiers of %s", ErrUnsupported, name)
	}
	c := mods[0].GetAConst()
	if c == nil || c.GetIval() == nil {
		return kindUnknown, fmt.Errorf("%w: type modifier of %s must be a simple constant", ErrSyntax, name)
	}
	n := c.GetIval().Ival
	switch {
	case k.id == idVarchar || k.id == idChar:
		if n < 1 {
			return kindUnknown, fmt.Errorf("%w: length for type %s must be at least 1", ErrInvalid, name)
		}
		if n > maxCharLength {
			return kindUnknown, fmt.Errorf("%w: length for type %s cannot exceed %d", ErrInvalid, name, maxCharLength)
		}
		k.n = n
		return k, nil
	case name == "float":
		switch {
		case n < 1:
			return kindUnknown, fmt.Errorf("%w: precision for type float must be at least 1 bit", ErrInvalid)
		case n <= 24:
			return kindF32, nil
		case n <= 53:
			return kindF64, nil
		}
		return kindUnknown, fmt.Errorf("%w: precision for type float must be less than 54 bits", ErrInvalid)
	case k.id == idTimestamp && n == 6:
		return k, nil
	}
	return kindUnknown, fmt.Errorf("%w: type modifier %d of %s", ErrUnsupported, n, name)
}

// numericMods reads NUMERIC(p[, s]): 1 <= p <= 38 (decimal128), 0 <= s <=
// p. NUMERIC without a precision, whose scale PostgreSQL chooses per
// value, has no decimal128 type and is refused.
func numericMods(mods []*pg_query.Node) (kind, error) {
	if len(mods) == 0 || len(mods) > 2 {
		return kindUnknown, fmt.Errorf("%w: NUMERIC without a precision (write NUMERIC(p, s))", ErrUnsupported)
	}
	var ps [2]int32
	for i, m := range mods {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			return kindUnknown, fmt.Errorf("%w: type modifier of numeric must be a simple constant", ErrSyntax)
		}
		ps[i] = c.GetIval().Ival
	}
	p, s := ps[0], ps[1]
	switch {
	case p < 1 || p > 1000:
		return kindUnknown, fmt.Errorf("%w: NUMERIC precision %d must be between 1 and 1000", ErrInvalid, p)
	case p > sqlvalue.MaxDecimalPrecision:
		return kindUnknown, fmt.Errorf("%w: NUMERIC precision %d (decimal128 holds 38 digits)", ErrUnsupported, p)
	case s < 0 || s > p:
		return kindUnknown, fmt.Errorf("%w: NUMERIC scale %d must be between 0 and precision %d", ErrUnsupported, s, p)
	}
	return kindNumeric(p, s), nil
}
