package server

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// GetSchema of a statement: the schema of the rows it would return,
// planned and not run (engine.DB.Describe), as a prepared statement's
// dataset schema is. ADBC's ExecuteSchema asks it of a statement it has
// not prepared; of a prepared one it asks again what the tables give now.

// GetSchemaStatement describes SQL text.
func (s *Server) GetSchemaStatement(ctx context.Context, cmd flightsql.StatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	if err := s.checkTxn(ctx, cmd.GetTransactionId()); err != nil {
		return nil, err
	}
	return s.schemaOf(ctx, cmd.GetQuery(), nil)
}

// GetSchemaSubstraitPlan describes a Substrait plan.
func (s *Server) GetSchemaSubstraitPlan(ctx context.Context, cmd flightsql.StatementSubstraitPlan, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	if err := s.checkTxn(ctx, cmd.GetTransactionId()); err != nil {
		return nil, err
	}
	plan := cmd.GetPlan().Plan
	if plan == nil {
		plan = []byte{}
	}
	return s.schemaOf(ctx, "", plan)
}

// GetSchemaPreparedStatement describes a prepared statement.
func (s *Server) GetSchemaPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	p, err := s.preparedOf(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	return s.schemaOf(ctx, p.sql, p.plan)
}

// schemaOf is the result schema of SQL text or a Substrait plan.
func (s *Server) schemaOf(ctx context.Context, text string, plan []byte) (*flight.SchemaResult, error) {
	d, err := s.db.Describe(s.fileCtx(ctx), text, plan)
	if err != nil {
		return nil, s.statusOf(err)
	}
	if d.Result == nil {
		return nil, status.Error(codes.Unimplemented, "the statements of a script are planned one by one as it runs: its result schema is known only then")
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(d.Result, s.mem)}, nil
}
