package server

import (
	"context"
	"slices"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
)

// xdbcType is one row of GetXdbcTypeInfo (JDBC's getTypeInfo, ODBC's
// SQLGetTypeInfo): a SQL type a column can be declared with.
type xdbcType struct {
	name         string          // as CREATE TABLE takes it
	dataType     pb.XdbcDataType // the JDBC/ODBC type
	sqlDataType  pb.XdbcDataType // dataType, but DATETIME for dates and timestamps (ODBC's concise/verbose split)
	subcode      int32           // datetime_subcode: 1 date, 3 timestamp (0: none)
	size         int32           // column_size: precision, or the longest value (0: unbounded)
	radix        int32           // num_prec_radix (0: not a number)
	quoted       bool            // a literal is written in quotes
	createParams []string        // the type's modifiers: varchar(length), numeric(precision, scale)
	maxScale     int32           // numeric's and timestamp's scale (0 with minScale 0: none)
	caseSens     bool
}

// maxCharLength is the longest varchar(n) and char(n), PostgreSQL's
// (sql's maxCharLength).
const maxCharLength = 10485760

// xdbcTypes are the types stablerow's columns have, each once, ordered by
// data_type as JDBC's getTypeInfo is. The sizes are PostgreSQL's
// (information_schema.columns): integers in decimal digits (5, 10, 19),
// real and double precision in bits (24, 53, radix 2); a timestamp's
// literal 'yyyy-mm-dd hh:mm:ss.ffffff' is 26 characters. text is
// unbounded (no column_size); varchar(n) and char(n) hold up to
// maxCharLength.
var xdbcTypes = sortTypes([]xdbcType{
	{name: "smallint", dataType: pb.XdbcDataType_XDBC_SMALLINT, size: 5, radix: 10},
	{name: "integer", dataType: pb.XdbcDataType_XDBC_INTEGER, size: 10, radix: 10},
	{name: "bigint", dataType: pb.XdbcDataType_XDBC_BIGINT, size: 19, radix: 10},
	{name: "real", dataType: pb.XdbcDataType_XDBC_REAL, size: 24, radix: 2},
	{name: "double precision", dataType: pb.XdbcDataType_XDBC_DOUBLE, size: 53, radix: 2},
	{name: "numeric", dataType: pb.XdbcDataType_XDBC_NUMERIC, size: physexpr.MaxDecimalPrecision, radix: 10,
		createParams: []string{"precision", "scale"}, maxScale: physexpr.MaxDecimalPrecision},
	{name: "text", dataType: pb.XdbcDataType_XDBC_VARCHAR, quoted: true, caseSens: true},
	{name: "character varying", dataType: pb.XdbcDataType_XDBC_VARCHAR, size: maxCharLength, quoted: true,
		createParams: []string{"length"}, caseSens: true},
	{name: "character", dataType: pb.XdbcDataType_XDBC_CHAR, size: maxCharLength, quoted: true,
		createParams: []string{"length"}, caseSens: true},
	{name: "boolean", dataType: pb.XdbcDataType_XDBC_BIT, size: 1},
	{name: "date", dataType: pb.XdbcDataType_XDBC_DATE, sqlDataType: pb.XdbcDataType_XDBC_DATETIME, subcode: 1, size: 10, quoted: true},
	{name: "timestamp", dataType: pb.XdbcDataType_XDBC_TIMESTAMP, sqlDataType: pb.XdbcDataType_XDBC_DATETIME, subcode: 3, size: 26,
		quoted: true, maxScale: 6},
})

func sortTypes(ts []xdbcType) []xdbcType {
	slices.SortStableFunc(ts, func(a, b xdbcType) int { return int(a.dataType) - int(b.dataType) })
	return ts
}

func (s *Server) GetFlightInfoXdbcTypeInfo(_ context.Context, _ flightsql.GetXdbcTypeInfo, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.catalogInfo(desc, schema_ref.XdbcTypeInfo), nil
}

// DoGetXdbcTypeInfo lists xdbcTypes, or those of the data_type asked for.
func (s *Server) DoGetXdbcTypeInfo(_ context.Context, cmd flightsql.GetXdbcTypeInfo) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.one(schema_ref.XdbcTypeInfo, func(b *array.RecordBuilder) {
		for _, t := range xdbcTypes {
			if dt := cmd.GetDataType(); dt != nil && *dt != int32(t.dataType) {
				continue
			}
			appendXdbcType(b, t)
		}
	})
}

// appendXdbcType appends t as a row of schema_ref.XdbcTypeInfo.
func appendXdbcType(b *array.RecordBuilder, t xdbcType) {
	str := func(i int, v string, ok bool) {
		if ok {
			b.Field(i).(*array.StringBuilder).Append(v)
		} else {
			b.Field(i).AppendNull()
		}
	}
	i32 := func(i int, v int32, ok bool) {
		if ok {
			b.Field(i).(*array.Int32Builder).Append(v)
		} else {
			b.Field(i).AppendNull()
		}
	}
	boolean := func(i int, v, ok bool) {
		if ok {
			b.Field(i).(*array.BooleanBuilder).Append(v)
		} else {
			b.Field(i).AppendNull()
		}
	}
	number := t.radix != 0
	str(0, t.name, true)
	i32(1, int32(t.dataType), true)
	i32(2, t.size, t.size != 0)
	str(3, "'", t.quoted)
	str(4, "'", t.quoted)
	lb := b.Field(5).(*array.ListBuilder)
	lb.Append(true)
	for _, p := range t.createParams {
		lb.ValueBuilder().(*array.StringBuilder).Append(p)
	}
	i32(6, int32(pb.Nullable_NULLABILITY_NULLABLE), true)
	boolean(7, t.caseSens, true)
	i32(8, int32(pb.Searchable_SEARCHABLE_FULL), true)
	boolean(9, false, number)  // unsigned_attribute
	boolean(10, false, true)   // fixed_prec_scale: no money type
	boolean(11, false, number) // auto_increment: no serial columns
	str(12, t.name, true)
	scaled := t.maxScale != 0
	i32(13, 0, scaled)
	i32(14, t.maxScale, scaled)
	sql := t.sqlDataType
	if sql == 0 {
		sql = t.dataType
	}
	i32(15, int32(sql), true)
	i32(16, t.subcode, t.subcode != 0)
	i32(17, t.radix, number)
	i32(18, 0, false)
}
