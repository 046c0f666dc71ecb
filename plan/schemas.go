package plan

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// catalogSchemas is the catalog as ingest's Schemas: the types of a
// table's columns, for a read whose base_schema names them without types
// (DataFusion's). The table and each column are found as the physical
// build finds them (planner.table, columnOf: exact, else folded case),
// so the types given are those of the columns the read will scan.
type catalogSchemas struct{ cat Catalog }

func (c catalogSchemas) ColumnTypes(table, columns []string) ([]*substraitpb.Type, error) {
	if len(table) != 1 {
		return nil, fmt.Errorf("%w: table name %q (want one part)", ErrInvalidPlan, strings.Join(table, "."))
	}
	t, err := (&planner{cat: c.cat, tables: map[string]TableProvider{}}).table(table[0])
	if err != nil {
		return nil, err
	}
	sc := t.Schema()
	out := make([]*substraitpb.Type, len(columns))
	for i, name := range columns {
		j, err := columnOf(sc, table[0], name)
		if err != nil {
			return nil, err
		}
		if out[i], err = substraitType(sc.Field(j)); err != nil {
			return nil, fmt.Errorf("column %q of %q: %w", name, table[0], err)
		}
	}
	return out, nil
}

// substraitType is the Substrait type a column of the Arrow type f holds
// is read as (arrowType's inverse): the row ids' uint64 travels as i64
// (rowid.go), a string is Substrait's string.
func substraitType(f arrow.Field) (*substraitpb.Type, error) {
	n := substraitpb.Type_NULLABILITY_REQUIRED
	if f.Nullable {
		n = substraitpb.Type_NULLABILITY_NULLABLE
	}
	switch t := f.Type.(type) {
	case *arrow.BooleanType:
		return &substraitpb.Type{Kind: &substraitpb.Type_Bool{Bool: &substraitpb.Type_Boolean{Nullability: n}}}, nil
	case *arrow.Int8Type:
		return &substraitpb.Type{Kind: &substraitpb.Type_I8_{I8: &substraitpb.Type_I8{Nullability: n}}}, nil
	case *arrow.Int16Type:
		return &substraitpb.Type{Kind: &substraitpb.Type_I16_{I16: &substraitpb.Type_I16{Nullability: n}}}, nil
	case *arrow.Int32Type:
		return &substraitpb.Type{Kind: &substraitpb.Type_I32_{I32: &substraitpb.Type_I32{Nullability: n}}}, nil
	case *arrow.Int64Type, *arrow.Uint64Type:
		return &substraitpb.Type{Kind: &substraitpb.Type_I64_{I64: &substraitpb.Type_I64{Nullability: n}}}, nil
	case *arrow.Float32Type:
		return &substraitpb.Type{Kind: &substraitpb.Type_Fp32{Fp32: &substraitpb.Type_FP32{Nullability: n}}}, nil
	case *arrow.Float64Type:
		return &substraitpb.Type{Kind: &substraitpb.Type_Fp64{Fp64: &substraitpb.Type_FP64{Nullability: n}}}, nil
	case *arrow.StringType, *arrow.LargeStringType:
		return &substraitpb.Type{Kind: &substraitpb.Type_String_{String_: &substraitpb.Type_String{Nullability: n}}}, nil
	case *arrow.Date32Type:
		return &substraitpb.Type{Kind: &substraitpb.Type_Date_{Date: &substraitpb.Type_Date{Nullability: n}}}, nil
	case *arrow.Decimal128Type:
		return &substraitpb.Type{Kind: &substraitpb.Type_Decimal_{Decimal: &substraitpb.Type_Decimal{Precision: t.Precision, Scale: t.Scale, Nullability: n}}}, nil
	case *arrow.TimestampType:
		if t.Unit == arrow.Microsecond && t.TimeZone == "" {
			return &substraitpb.Type{Kind: &substraitpb.Type_PrecisionTimestamp_{PrecisionTimestamp: &substraitpb.Type_PrecisionTimestamp{Precision: 6, Nullability: n}}}, nil
		}
	}
	return nil, fmt.Errorf("%w: a column of type %s in a read that gives no types", errUnsupported("type"), f.Type)
}
