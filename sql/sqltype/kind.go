package sqltype

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/substrait-io/substrait-go/v8/types"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// ID is one of the SQL types the front end knows.
type ID uint8

const (
	IDUnknown ID = iota
	IDI16
	IDI32
	IDI64
	IDF32
	IDF64
	IDString  // text
	IDVarchar // character varying(n); n == 0: unbounded
	IDChar    // character(n), blank-padded
	IDBool
	IDDate
	IDTimestamp // timestamp without time zone, microseconds
	IDNumeric   // numeric(n, s): precision n (1..38), scale s
)

// Kind is a SQL type: its id and, for varchar(n) and char(n), the declared
// length n. It is comparable, so kinds compare with ==.
type Kind struct {
	ID ID
	N  int32
	S  int32 // numeric's scale
}

var (
	KindUnknown   = Kind{}
	KindI16       = Kind{ID: IDI16}
	KindI32       = Kind{ID: IDI32}
	KindI64       = Kind{ID: IDI64}
	KindF32       = Kind{ID: IDF32}
	KindF64       = Kind{ID: IDF64}
	KindString    = Kind{ID: IDString}
	KindBool      = Kind{ID: IDBool}
	KindDate      = Kind{ID: IDDate}
	KindTimestamp = Kind{ID: IDTimestamp}
)

func KindVarchar(n int32) Kind { return Kind{ID: IDVarchar, N: n} }
func KindChar(n int32) Kind    { return Kind{ID: IDChar, N: n} }
func KindNumeric(p, s int32) Kind {
	return Kind{ID: IDNumeric, N: min(max(p, 1), sqlvalue.MaxDecimalPrecision), S: min(max(s, 0), sqlvalue.MaxDecimalPrecision)}
}

// String is PostgreSQL's name of the type, as its messages spell it.
func (k Kind) String() string {
	switch k.ID {
	case IDI16:
		return "smallint"
	case IDI32:
		return "integer"
	case IDI64:
		return "bigint"
	case IDF32:
		return "real"
	case IDF64:
		return "double precision"
	case IDString:
		return "text"
	case IDVarchar:
		if k.N == 0 {
			return "character varying"
		}
		return fmt.Sprintf("character varying(%d)", k.N)
	case IDChar:
		return fmt.Sprintf("character(%d)", k.N)
	case IDBool:
		return "boolean"
	case IDDate:
		return "date"
	case IDTimestamp:
		return "timestamp without time zone"
	case IDNumeric:
		return fmt.Sprintf("numeric(%d,%d)", k.N, k.S)
	}
	return "unknown"
}

// substraitName is the element_type spelling of the UNNEST detail (substrait.md §4).
func (k Kind) SubstraitName() string {
	switch k {
	case KindI64:
		return "i64"
	case KindF64:
		return "fp64"
	case KindString:
		return "string"
	case KindBool:
		return "bool"
	}
	return ""
}

func (k Kind) Integer() bool { return k.ID == IDI16 || k.ID == IDI32 || k.ID == IDI64 }
func (k Kind) Float() bool   { return k.ID == IDF32 || k.ID == IDF64 }
func (k Kind) Numeric() bool { return k.Integer() || k.Float() || k.ID == IDNumeric }

// digits is how many decimal digits an integer Kind's values have at most.
func (k Kind) Digits() int32 {
	return map[ID]int32{IDI16: 5, IDI32: 10, IDI64: 19}[k.ID]
}

// asNumeric is the numeric holding every value of k exactly.
func (k Kind) AsNumeric() Kind {
	if k.Integer() {
		return KindNumeric(k.Digits(), 0)
	}
	return k
}

// stringy: text, varchar(n) and char(n), which meet at text.
func (k Kind) Stringy() bool { return k.ID == IDString || k.ID == IDVarchar || k.ID == IDChar }

// datetime: date and timestamp.
func (k Kind) Datetime() bool { return k.ID == IDDate || k.ID == IDTimestamp }

// ordered: the types with a btree ordering (GREATEST, LEAST).
func (k Kind) Ordered() bool { return k.Numeric() || k.Stringy() || k.Datetime() || k.ID == IDBool }

// rank orders the numeric kinds by PostgreSQL's implicit casts: smallint
// widens to integer, to bigint, to numeric, to real, to double precision.
func (k Kind) Rank() int {
	switch k.ID {
	case IDI16:
		return 1
	case IDI32:
		return 2
	case IDI64:
		return 3
	case IDNumeric:
		return 4
	case IDF32:
		return 5
	case IDF64:
		return 6
	}
	return 0
}

// promote is the Kind two numeric operands meet at, as PostgreSQL's
// operator resolution picks it: the wider integer for two integers
// (int2 + int4 is int4), real for two reals, double precision as soon as
// a float meets anything else (int4 + real is double precision: there
// is no int4-real operator and the float8 one is preferred).
func Promote(a, b Kind) Kind {
	switch {
	case a == b:
		return a
	case a.Integer() && b.Integer():
		if a.Rank() > b.Rank() {
			return a
		}
		return b
	case a.Float() || b.Float():
		return KindF64
	}
	// numeric meets an integer or a numeric at the numeric that holds
	// both exactly (the comparison's common type).
	a, b = a.AsNumeric(), b.AsNumeric()
	sc := max(a.S, b.S)
	return KindNumeric(max(a.N-a.S, b.N-b.S)+sc, sc)
}

func Nullability(nullable bool) types.Nullability {
	if nullable {
		return types.NullabilityNullable
	}
	return types.NullabilityRequired
}

// typ is the Substrait type of Kind k.
func (k Kind) Type(nullable bool) types.Type {
	n := Nullability(nullable)
	switch k.ID {
	case IDI16:
		return &types.Int16Type{Nullability: n}
	case IDI32:
		return &types.Int32Type{Nullability: n}
	case IDI64:
		return &types.Int64Type{Nullability: n}
	case IDF32:
		return &types.Float32Type{Nullability: n}
	case IDF64:
		return &types.Float64Type{Nullability: n}
	case IDString:
		return &types.StringType{Nullability: n}
	case IDVarchar:
		if k.N == 0 {
			return &types.StringType{Nullability: n}
		}
		return &types.VarCharType{Nullability: n, Length: k.N}
	case IDChar:
		return &types.FixedCharType{Nullability: n, Length: k.N}
	case IDBool:
		return &types.BooleanType{Nullability: n}
	case IDDate:
		return &types.DateType{Nullability: n}
	case IDTimestamp:
		return &types.PrecisionTimestampType{Nullability: n, Precision: types.PrecisionMicroSeconds}
	case IDNumeric:
		return &types.DecimalType{Nullability: n, Precision: k.N, Scale: k.S}
	}
	return nil
}

// arrow is the Arrow type of Kind k (for CREATE TABLE), and the declared
// SQL type the table records when the Arrow type does not say it.
func (k Kind) Arrow() (arrow.DataType, string) {
	switch k.ID {
	case IDI16:
		return arrow.PrimitiveTypes.Int16, ""
	case IDI32:
		return arrow.PrimitiveTypes.Int32, ""
	case IDI64:
		return arrow.PrimitiveTypes.Int64, ""
	case IDF32:
		return arrow.PrimitiveTypes.Float32, ""
	case IDF64:
		return arrow.PrimitiveTypes.Float64, ""
	case IDString:
		return arrow.BinaryTypes.String, ""
	case IDVarchar:
		if k.N == 0 {
			return arrow.BinaryTypes.String, "varchar"
		}
		return arrow.BinaryTypes.String, fmt.Sprintf("varchar(%d)", k.N)
	case IDChar:
		return arrow.BinaryTypes.String, fmt.Sprintf("char(%d)", k.N) + sqlvalue.CharTrimmed
	case IDBool:
		return arrow.FixedWidthTypes.Boolean, ""
	case IDDate:
		return arrow.FixedWidthTypes.Date32, ""
	case IDTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}, ""
	case IDNumeric:
		return &arrow.Decimal128Type{Precision: k.N, Scale: k.S}, ""
	}
	return nil, ""
}

// kindOf classifies a Substrait type; KindUnknown for anything else.
func Of(t types.Type) Kind {
	switch t := t.(type) {
	case *types.Int16Type:
		return KindI16
	case *types.Int32Type:
		return KindI32
	case *types.Int64Type:
		return KindI64
	case *types.Float32Type:
		return KindF32
	case *types.Float64Type:
		return KindF64
	case *types.StringType:
		return KindString
	case *types.VarCharType:
		return KindVarchar(t.Length)
	case *types.FixedCharType:
		return KindChar(t.Length)
	case *types.BooleanType:
		return KindBool
	case *types.DateType:
		return KindDate
	case *types.PrecisionTimestampType:
		if t.Precision == types.PrecisionMicroSeconds {
			return KindTimestamp
		}
	case *types.DecimalType:
		return KindNumeric(t.Precision, t.Scale)
	}
	return KindUnknown
}

func IsNullable(t types.Type) bool { return t.GetNullability() != types.NullabilityRequired }

// fieldKind classifies a column of a catalog schema. The system columns are
// uint64 in Arrow and i64 in Substrait (substrait.md §3); a string column is the
// varchar(n) or char(n) its declaration recorded, else text.
func OfField(f arrow.Field) Kind {
	switch f.Type.ID() {
	case arrow.INT64, arrow.UINT64, arrow.UINT32:
		return KindI64
	case arrow.INT32, arrow.UINT16:
		return KindI32
	case arrow.INT16, arrow.INT8, arrow.UINT8:
		return KindI16
	case arrow.FLOAT64:
		return KindF64
	case arrow.FLOAT32:
		return KindF32
	case arrow.STRING:
		if decl, ok := sqlvalue.SQLType(f); ok {
			if k, ok := ParseDeclared(decl); ok {
				return k
			}
			return KindUnknown
		}
		return KindString
	case arrow.LARGE_STRING:
		return KindString
	case arrow.BOOL:
		return KindBool
	case arrow.DATE32:
		return KindDate
	case arrow.DECIMAL128:
		d := f.Type.(*arrow.Decimal128Type)
		return KindNumeric(d.Precision, d.Scale)
	case arrow.TIMESTAMP:
		if ts := f.Type.(*arrow.TimestampType); ts.Unit == arrow.Microsecond && ts.TimeZone == "" {
			return KindTimestamp
		}
	}
	return KindUnknown
}

// parseDeclared reads a declared SQL type as the table records it
// (sqlvalue.SQLTypeKey): varchar, varchar(n), char(n) trimmed and an older
// table's char(n), read stripped (engine/catalog.go).
func ParseDeclared(decl string) (Kind, bool) {
	decl = strings.TrimSuffix(decl, sqlvalue.CharTrimmed)
	if decl == "varchar" {
		return KindVarchar(0), true
	}
	var n int32
	if _, err := fmt.Sscanf(decl, "varchar(%d)", &n); err == nil && n > 0 {
		return KindVarchar(n), true
	}
	if _, err := fmt.Sscanf(decl, "char(%d)", &n); err == nil && n > 0 {
		return KindChar(n), true
	}
	return KindUnknown, false
}

// declared is the table's spelling of k (what Kind.arrow returns).
func (k Kind) Declared() string { _, d := k.Arrow(); return d }

// sqlTypeNames maps Postgres' internal type names (what the grammar turns
// BIGINT, DOUBLE PRECISION, VARCHAR(n) ... into) to kinds.
var Names = map[string]Kind{
	"int8": KindI64, "bigint": KindI64,
	"int4": KindI32, "integer": KindI32, "int": KindI32,
	"int2": KindI16, "smallint": KindI16,
	"float8": KindF64, "double precision": KindF64,
	"float4": KindF32, "real": KindF32,
	"text":    KindString,
	"varchar": KindVarchar(0), "bpchar": KindChar(1), "char": KindChar(1),
	"bool": KindBool, "boolean": KindBool,
	"date": KindDate, "timestamp": KindTimestamp,
	"numeric": {ID: IDNumeric}, "decimal": {ID: IDNumeric},
}

// maxCharLength is PostgreSQL's limit on n in varchar(n) and char(n).
const MaxCharLength = 10485760
