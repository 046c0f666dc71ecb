package tpch

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// The column types: keys and counts are BIGINT, money and quantities
// DECIMAL(15,2) (TPC-H 1.3.1's decimal), dates DATE, the fixed and
// variable text columns TEXT (the engines compare CHAR(n) and TEXT the
// same way for these values, which never end in blanks).
var (
	tInt  = arrow.PrimitiveTypes.Int64
	tDec  = &arrow.Decimal128Type{Precision: 15, Scale: 2}
	tDate = arrow.FixedWidthTypes.Date32
	tStr  = arrow.BinaryTypes.String
)

func schemaOf(cols ...any) *arrow.Schema {
	fs := make([]arrow.Field, 0, len(cols)/2)
	for i := 0; i < len(cols); i += 2 {
		fs = append(fs, arrow.Field{Name: cols[i].(string), Type: cols[i+1].(arrow.DataType), Nullable: true})
	}
	return arrow.NewSchema(fs, nil)
}

// Tables are the eight tables in load order, with their Arrow schemas.
var Tables = []struct {
	Name   string
	Schema *arrow.Schema
}{
	{"region", schemaOf("r_regionkey", tInt, "r_name", tStr, "r_comment", tStr)},
	{"nation", schemaOf("n_nationkey", tInt, "n_name", tStr, "n_regionkey", tInt, "n_comment", tStr)},
	{"supplier", schemaOf("s_suppkey", tInt, "s_name", tStr, "s_address", tStr, "s_nationkey", tInt,
		"s_phone", tStr, "s_acctbal", tDec, "s_comment", tStr)},
	{"part", schemaOf("p_partkey", tInt, "p_name", tStr, "p_mfgr", tStr, "p_brand", tStr, "p_type", tStr,
		"p_size", tInt, "p_container", tStr, "p_retailprice", tDec, "p_comment", tStr)},
	{"partsupp", schemaOf("ps_partkey", tInt, "ps_suppkey", tInt, "ps_availqty", tInt, "ps_supplycost", tDec,
		"ps_comment", tStr)},
	{"customer", schemaOf("c_custkey", tInt, "c_name", tStr, "c_address", tStr, "c_nationkey", tInt,
		"c_phone", tStr, "c_acctbal", tDec, "c_mktsegment", tStr, "c_comment", tStr)},
	{"orders", schemaOf("o_orderkey", tInt, "o_custkey", tInt, "o_orderstatus", tStr, "o_totalprice", tDec,
		"o_orderdate", tDate, "o_orderpriority", tStr, "o_clerk", tStr, "o_shippriority", tInt, "o_comment", tStr)},
	{"lineitem", schemaOf("l_orderkey", tInt, "l_partkey", tInt, "l_suppkey", tInt, "l_linenumber", tInt,
		"l_quantity", tDec, "l_extendedprice", tDec, "l_discount", tDec, "l_tax", tDec,
		"l_returnflag", tStr, "l_linestatus", tStr, "l_shipdate", tDate, "l_commitdate", tDate,
		"l_receiptdate", tDate, "l_shipinstruct", tStr, "l_shipmode", tStr, "l_comment", tStr)},
}

// CreateSQL is the CREATE TABLE statement for a table, in the SQL both
// engines accept.
func CreateSQL(name string, s *arrow.Schema) string {
	cols := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		var t string
		switch f.Type.ID() {
		case arrow.INT64:
			t = "BIGINT"
		case arrow.DECIMAL128:
			d := f.Type.(*arrow.Decimal128Type)
			t = fmt.Sprintf("DECIMAL(%d,%d)", d.Precision, d.Scale)
		case arrow.DATE32:
			t = "DATE"
		default:
			t = "TEXT"
		}
		cols[i] = f.Name + " " + t + " NOT NULL"
	}
	return fmt.Sprintf("CREATE TABLE %s (%s)", name, strings.Join(cols, ", "))
}
