package server

import (
	"context"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
)

// The database has tables, no catalogs and one unnamed schema: a table is
// named by its name alone.

// catalogInfo is the FlightInfo of a catalog call: one endpoint whose
// ticket is the command itself (DoGet routes it back by its type).
func (s *Server) catalogInfo(desc *flight.FlightDescriptor, schema *arrow.Schema) *flight.FlightInfo {
	return &flight.FlightInfo{
		FlightDescriptor: desc,
		Schema:           flight.SerializeSchema(schema, s.mem),
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: desc.Cmd}}},
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
}

// one streams one batch built by fill over schema.
func (s *Server) one(schema *arrow.Schema, fill func(b *array.RecordBuilder)) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	b := array.NewRecordBuilder(s.mem, schema)
	defer b.Release()
	fill(b)
	ch := make(chan flight.StreamChunk, 1)
	ch <- flight.StreamChunk{Data: b.NewRecordBatch()}
	close(ch)
	return schema, ch, nil
}

func (s *Server) GetFlightInfoCatalogs(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.catalogInfo(desc, schema_ref.Catalogs), nil
}

func (s *Server) DoGetCatalogs(context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.one(schema_ref.Catalogs, func(*array.RecordBuilder) {})
}

func (s *Server) GetFlightInfoSchemas(_ context.Context, _ flightsql.GetDBSchemas, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.catalogInfo(desc, schema_ref.DBSchemas), nil
}

// DoGetDBSchemas reports the one unnamed schema the tables are in (a
// schema name is not null in Flight SQL; clients such as ADBC's GetObjects
// list tables by schema).
func (s *Server) DoGetDBSchemas(_ context.Context, cmd flightsql.GetDBSchemas) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	match := (cmd.GetCatalog() == nil || *cmd.GetCatalog() == "") &&
		(cmd.GetDBSchemaFilterPattern() == nil || like(*cmd.GetDBSchemaFilterPattern(), ""))
	return s.one(schema_ref.DBSchemas, func(b *array.RecordBuilder) {
		if match {
			b.Field(0).AppendNull()
			b.Field(1).(*array.StringBuilder).Append("")
		}
	})
}

func (s *Server) GetFlightInfoTableTypes(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.catalogInfo(desc, schema_ref.TableTypes), nil
}

func (s *Server) DoGetTableTypes(context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.one(schema_ref.TableTypes, func(b *array.RecordBuilder) {
		b.Field(0).(*array.StringBuilder).Append("TABLE")
		b.Field(0).(*array.StringBuilder).Append("VIEW")
	})
}

func (s *Server) GetFlightInfoPrimaryKeys(_ context.Context, _ flightsql.TableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.catalogInfo(desc, schema_ref.PrimaryKeys), nil
}

// DoGetPrimaryKeys answers the PRIMARY KEY of the table the reference
// names, from the catalog: one row per key column, in key order
// (key_sequence from 1), key_name the constraint's name (its index's:
// <table>_pkey unless named), as JDBC's getPrimaryKeys and
// PostgreSQL's pg_constraint give them. A table without one, or a
// reference to a catalog or schema other than the one unnamed schema,
// answers no rows; an unknown table is NotFound.
func (s *Server) DoGetPrimaryKeys(ctx context.Context, ref flightsql.TableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	var keys []string
	pk := ""
	if (ref.Catalog == nil || *ref.Catalog == "") && (ref.DBSchema == nil || *ref.DBSchema == "") {
		t, err := s.db.Table(ctx, ref.Table)
		if err != nil {
			return nil, nil, s.statusOf(err)
		}
		if pk = t.Constraints().PrimaryKey; pk != "" {
			if ix := t.Index(pk); ix != nil {
				for _, k := range ix.KeyColumns() {
					keys = append(keys, k.Column)
				}
			}
		}
	}
	return s.one(schema_ref.PrimaryKeys, func(b *array.RecordBuilder) {
		for i, col := range keys {
			b.Field(0).AppendNull()
			b.Field(1).AppendNull()
			b.Field(2).(*array.StringBuilder).Append(ref.Table)
			b.Field(3).(*array.StringBuilder).Append(col)
			b.Field(4).(*array.Int32Builder).Append(int32(i + 1))
			b.Field(5).(*array.StringBuilder).Append(pk)
		}
	})
}

func (s *Server) GetFlightInfoImportedKeys(_ context.Context, _ flightsql.TableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.catalogInfo(desc, schema_ref.ImportedKeys), nil
}

func (s *Server) DoGetImportedKeys(context.Context, flightsql.TableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.one(schema_ref.ImportedKeys, func(*array.RecordBuilder) {})
}

func (s *Server) GetFlightInfoExportedKeys(_ context.Context, _ flightsql.TableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.catalogInfo(desc, schema_ref.ExportedKeys), nil
}

func (s *Server) DoGetExportedKeys(context.Context, flightsql.TableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.one(schema_ref.ExportedKeys, func(*array.RecordBuilder) {})
}

func (s *Server) GetFlightInfoCrossReference(_ context.Context, _ flightsql.CrossTableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.catalogInfo(desc, schema_ref.CrossReference), nil
}

func (s *Server) DoGetCrossReference(context.Context, flightsql.CrossTableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.one(schema_ref.CrossReference, func(*array.RecordBuilder) {})
}

func (s *Server) GetFlightInfoTables(_ context.Context, cmd flightsql.GetTables, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if cmd.GetIncludeSchema() {
		return s.catalogInfo(desc, schema_ref.TablesWithIncludedSchema), nil
	}
	return s.catalogInfo(desc, schema_ref.Tables), nil
}

// DoGetTables lists the tables a filter matches, with their user columns'
// schema when asked. A catalog or schema filter other than empty matches
// nothing: there are none.
func (s *Server) DoGetTables(ctx context.Context, cmd flightsql.GetTables) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	schema := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		schema = schema_ref.TablesWithIncludedSchema
	}
	var names, kinds []string // kinds[i]: "TABLE" or "VIEW"
	wants := func(kind string) bool {
		return len(cmd.GetTableTypes()) == 0 || slices.ContainsFunc(cmd.GetTableTypes(), func(t string) bool { return strings.EqualFold(t, kind) })
	}
	none := (cmd.GetCatalog() != nil && *cmd.GetCatalog() != "") ||
		(cmd.GetDBSchemaFilterPattern() != nil && !like(*cmd.GetDBSchemaFilterPattern(), ""))
	add := func(kind string, list []string) {
		if none || !wants(kind) {
			return
		}
		for _, n := range list {
			if p := cmd.GetTableNameFilterPattern(); p == nil || like(*p, n) {
				names, kinds = append(names, n), append(kinds, kind)
			}
		}
	}
	add("TABLE", s.db.Tables())
	views, err := s.db.Views(ctx) // views.go in engine: each a table_type VIEW
	if err != nil {
		return nil, nil, s.statusOf(err)
	}
	add("VIEW", views)
	var schemas [][]byte
	if cmd.GetIncludeSchema() {
		for i, n := range names {
			var sch *arrow.Schema
			if kinds[i] == "VIEW" {
				if sch, err = s.db.ViewSchema(ctx, n); err != nil {
					return nil, nil, s.statusOf(err)
				}
			} else {
				t, err := s.db.Table(ctx, n)
				if err != nil {
					return nil, nil, s.statusOf(err)
				}
				sch = t.UserSchema()
			}
			schemas = append(schemas, flight.SerializeSchema(sch, s.mem))
		}
	}
	return s.one(schema, func(b *array.RecordBuilder) {
		for i, n := range names {
			b.Field(0).AppendNull()
			b.Field(1).AppendNull()
			b.Field(2).(*array.StringBuilder).Append(n)
			b.Field(3).(*array.StringBuilder).Append(kinds[i])
			if schemas != nil {
				b.Field(4).(*array.BinaryBuilder).Append(schemas[i])
			}
		}
	})
}

// like matches s against a SQL LIKE pattern as Flight SQL's filters use
// it: % any run of characters, _ one character, \ escapes the next one.
// Case-insensitive, as table names are.
func like(pattern, s string) bool {
	p, t := []rune(strings.ToLower(pattern)), []rune(strings.ToLower(s))
	// Backtracking over the last %: linear in practice, never exponential.
	pi, ti, star, mark := 0, 0, -1, 0
	for ti < len(t) {
		switch {
		case pi < len(p) && p[pi] == '%':
			star, mark = pi, ti
			pi++
			continue
		case pi < len(p) && p[pi] == '\\' && pi+1 < len(p) && p[pi+1] == t[ti]:
			pi += 2
			ti++
			continue
		case pi < len(p) && p[pi] != '\\' && (p[pi] == '_' || p[pi] == t[ti]):
			pi++
			ti++
			continue
		case star >= 0:
			pi = star + 1
			mark++
			ti = mark
			continue
		}
		return false
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}
