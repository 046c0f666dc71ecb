package tpch

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// The column types of the Parquet files and of the TEXT variant of the
// tables (DDLText): keys and counts are BIGINT, money and quantities
// DECIMAL(15,2) (TPC-H 1.3.1's decimal), dates DATE, the fixed and
// variable text columns TEXT. The specification's own DDL (DDLSpec,
// clause 1.4.1) is the default: specTypes.
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

// The two sets of column types the tables can be created with.
const (
	DDLSpec = "spec" // the specification's: CHAR(n), VARCHAR(n), INTEGER keys
	DDLText = "text" // TEXT and BIGINT for every text and integer column
)

// specTypes are the column types of TPC-H 3.0.1 clause 1.4.1: identifiers
// and integers INTEGER, fixed text of size n CHAR(n), variable text
// VARCHAR(n), decimals DECIMAL(15,2), dates DATE.
var specTypes = map[string]string{
	"r_regionkey": "INTEGER", "r_name": "CHAR(25)", "r_comment": "VARCHAR(152)",
	"n_nationkey": "INTEGER", "n_name": "CHAR(25)", "n_regionkey": "INTEGER", "n_comment": "VARCHAR(152)",
	"s_suppkey": "INTEGER", "s_name": "CHAR(25)", "s_address": "VARCHAR(40)", "s_nationkey": "INTEGER",
	"s_phone": "CHAR(15)", "s_comment": "VARCHAR(101)",
	"p_partkey": "INTEGER", "p_name": "VARCHAR(55)", "p_mfgr": "CHAR(25)", "p_brand": "CHAR(10)",
	"p_type": "VARCHAR(25)", "p_size": "INTEGER", "p_container": "CHAR(10)", "p_comment": "VARCHAR(23)",
	"ps_partkey": "INTEGER", "ps_suppkey": "INTEGER", "ps_availqty": "INTEGER", "ps_comment": "VARCHAR(199)",
	"c_custkey": "INTEGER", "c_name": "VARCHAR(25)", "c_address": "VARCHAR(40)", "c_nationkey": "INTEGER",
	"c_phone": "CHAR(15)", "c_mktsegment": "CHAR(10)", "c_comment": "VARCHAR(117)",
	"o_orderkey": "INTEGER", "o_custkey": "INTEGER", "o_orderstatus": "CHAR(1)", "o_orderpriority": "CHAR(15)",
	"o_clerk": "CHAR(15)", "o_shippriority": "INTEGER", "o_comment": "VARCHAR(79)",
	"l_orderkey": "INTEGER", "l_partkey": "INTEGER", "l_suppkey": "INTEGER", "l_linenumber": "INTEGER",
	"l_returnflag": "CHAR(1)", "l_linestatus": "CHAR(1)", "l_shipinstruct": "CHAR(25)", "l_shipmode": "CHAR(10)",
	"l_comment": "VARCHAR(44)",
}

// CreateDDL is the CREATE TABLE statement for a table with the column
// types of ddl (DDLSpec, DDLText), in the SQL both engines accept.
func CreateDDL(ddl, name string, s *arrow.Schema) string {
	cols := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		t, ok := specTypes[f.Name]
		if !ok || ddl != DDLSpec {
			t = textType(f.Type) // decimals and dates: the same in both
		}
		cols[i] = f.Name + " " + t + " NOT NULL"
	}
	return fmt.Sprintf("CREATE TABLE %s (%s)", name, strings.Join(cols, ", "))
}

// CreateSQL is the CREATE TABLE statement for a table with the TEXT
// variant's types (DDLText).
func CreateSQL(name string, s *arrow.Schema) string { return CreateDDL(DDLText, name, s) }

// textType is the TEXT variant's SQL type of a column of Arrow type t.
func textType(t arrow.DataType) string {
	switch t.ID() {
	case arrow.INT64:
		return "BIGINT"
	case arrow.DECIMAL128:
		d := t.(*arrow.Decimal128Type)
		return fmt.Sprintf("DECIMAL(%d,%d)", d.Precision, d.Scale)
	case arrow.DATE32:
		return "DATE"
	}
	return "TEXT"
}
