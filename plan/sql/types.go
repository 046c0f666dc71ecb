package sql

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/types"
)

// kind is the small closed set of value types the SQL surface knows
// (substrait.md §3): every integer is i64, every float fp64.
type kind int

const (
	kindUnknown kind = iota
	kindI64
	kindF64
	kindString
	kindBool
)

func (k kind) String() string {
	switch k {
	case kindI64:
		return "bigint"
	case kindF64:
		return "double precision"
	case kindString:
		return "text"
	case kindBool:
		return "boolean"
	}
	return "unknown"
}

// substraitName is the element_type spelling of the UNNEST detail (§4).
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

func (k kind) numeric() bool { return k == kindI64 || k == kindF64 }

func nullability(nullable bool) types.Nullability {
	if nullable {
		return types.NullabilityNullable
	}
	return types.NullabilityRequired
}

// typ is the Substrait type of kind k.
func (k kind) typ(nullable bool) types.Type {
	n := nullability(nullable)
	switch k {
	case kindI64:
		return &types.Int64Type{Nullability: n}
	case kindF64:
		return &types.Float64Type{Nullability: n}
	case kindString:
		return &types.StringType{Nullability: n}
	case kindBool:
		return &types.BooleanType{Nullability: n}
	}
	return nil
}

// arrow is the Arrow type of kind k (for CREATE TABLE).
func (k kind) arrow() arrow.DataType {
	switch k {
	case kindI64:
		return arrow.PrimitiveTypes.Int64
	case kindF64:
		return arrow.PrimitiveTypes.Float64
	case kindString:
		return arrow.BinaryTypes.String
	case kindBool:
		return arrow.FixedWidthTypes.Boolean
	}
	return nil
}

// kindOf classifies a Substrait type; kindUnknown for anything else.
func kindOf(t types.Type) kind {
	switch t.(type) {
	case *types.Int64Type:
		return kindI64
	case *types.Float64Type:
		return kindF64
	case *types.StringType:
		return kindString
	case *types.BooleanType:
		return kindBool
	}
	return kindUnknown
}

func isNullable(t types.Type) bool { return t.GetNullability() != types.NullabilityRequired }

// arrowKind classifies a column of a catalog schema. The system columns are
// uint64 in Arrow and i64 in Substrait (§3).
func arrowKind(dt arrow.DataType) kind {
	switch dt.ID() {
	case arrow.INT64, arrow.UINT64, arrow.INT32, arrow.INT16, arrow.INT8, arrow.UINT32, arrow.UINT16, arrow.UINT8:
		return kindI64
	case arrow.FLOAT64, arrow.FLOAT32:
		return kindF64
	case arrow.STRING, arrow.LARGE_STRING:
		return kindString
	case arrow.BOOL:
		return kindBool
	}
	return kindUnknown
}

// sqlTypeNames maps Postgres' internal type names (what the grammar turns
// BIGINT, DOUBLE PRECISION, VARCHAR(n) ... into) to kinds.
var sqlTypeNames = map[string]kind{
	"int8": kindI64, "int4": kindI64, "int2": kindI64, "bigint": kindI64, "integer": kindI64, "int": kindI64, "smallint": kindI64,
	"float8": kindF64, "float4": kindF64, "double precision": kindF64, "real": kindF64, "float": kindF64,
	"text": kindString, "varchar": kindString, "bpchar": kindString, "char": kindString,
	"bool": kindBool, "boolean": kindBool,
}

// typeName resolves a TypeName node. array reports a T[] type.
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
	switch len(tn.ArrayBounds) {
	case 0:
	case 1:
		array = true
	default:
		return kindUnknown, false, fmt.Errorf("%w: multidimensional array type", ErrUnsupported)
	}
	return k, array, nil
}
