package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/engine"
)

// prepared is a prepared statement: SQL text or a Substrait plan, and the
// parameters last bound to it. It is planned when executed (the tables may
// have changed since it was prepared).
type prepared struct {
	sql  string
	plan []byte // a Substrait plan when not nil

	mu       sync.Mutex
	params   []any     // bound values, $1 first (nil: none bound)
	lastUsed time.Time // a statement unused for Options.PreparedTTL is dropped
}

func (p *prepared) runner(s *Server) runner {
	p.mu.Lock()
	params := p.params
	p.mu.Unlock()
	if p.plan != nil {
		return s.substraitRunner(p.plan, params)
	}
	return s.sqlRunner(p.sql, params)
}

// addPrepared registers p and drops the statements unused for
// Options.PreparedTTL: a client that never closes its statements (or
// died) must not grow the server for ever.
func (s *Server) addPrepared(p *prepared) []byte {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	now := time.Now()
	p.lastUsed = now
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, q := range s.prepared {
		q.mu.Lock()
		idle := now.Sub(q.lastUsed) > s.opt.PreparedTTL
		q.mu.Unlock()
		if idle {
			delete(s.prepared, k)
		}
	}
	s.prepared[h] = p
	return []byte(h)
}

func (s *Server) preparedOf(handle []byte) (*prepared, error) {
	s.mu.Lock()
	p, ok := s.prepared[string(handle)]
	s.mu.Unlock()
	if !ok {
		return nil, status.Error(codes.NotFound, "no such prepared statement (closed, unused too long, or of another server)")
	}
	p.mu.Lock()
	p.lastUsed = time.Now()
	p.mu.Unlock()
	return p, nil
}

// CreatePreparedStatement prepares SQL text.
func (s *Server) CreatePreparedStatement(_ context.Context, req flightsql.ActionCreatePreparedStatementRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	if err := noTransaction(req.GetTransactionId()); err != nil {
		return flightsql.ActionCreatePreparedStatementResult{}, err
	}
	return flightsql.ActionCreatePreparedStatementResult{Handle: s.addPrepared(&prepared{sql: req.GetQuery()})}, nil
}

// CreatePreparedSubstraitPlan prepares a Substrait plan.
func (s *Server) CreatePreparedSubstraitPlan(_ context.Context, req flightsql.ActionCreatePreparedSubstraitPlanRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	if err := noTransaction(req.GetTransactionId()); err != nil {
		return flightsql.ActionCreatePreparedStatementResult{}, err
	}
	plan := req.GetPlan().Plan
	if plan == nil {
		plan = []byte{}
	}
	return flightsql.ActionCreatePreparedStatementResult{Handle: s.addPrepared(&prepared{plan: plan})}, nil
}

// ClosePreparedStatement forgets a prepared statement.
func (s *Server) ClosePreparedStatement(_ context.Context, req flightsql.ActionClosePreparedStatementRequest) error {
	s.mu.Lock()
	delete(s.prepared, string(req.GetPreparedStatementHandle()))
	s.mu.Unlock()
	return nil
}

// DoPutPreparedStatementQuery binds parameters to a prepared query.
func (s *Server) DoPutPreparedStatementQuery(_ context.Context, cmd flightsql.PreparedStatementQuery, rdr flight.MessageReader, _ flight.MetadataWriter) ([]byte, error) {
	p, err := s.preparedOf(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	params, err := s.readParams(rdr)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.params = params
	p.mu.Unlock()
	return cmd.GetPreparedStatementHandle(), nil
}

// GetFlightInfoPreparedStatement starts a prepared query with its bound
// parameters.
func (s *Server) GetFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	p, err := s.preparedOf(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	return s.start(ctx, p.runner(s), desc)
}

// DoPutPreparedStatementUpdate runs a prepared DML statement with the
// parameters sent along.
func (s *Server) DoPutPreparedStatementUpdate(ctx context.Context, cmd flightsql.PreparedStatementUpdate, rdr flight.MessageReader) (int64, error) {
	p, err := s.preparedOf(cmd.GetPreparedStatementHandle())
	if err != nil {
		return 0, err
	}
	params, err := s.readParams(rdr)
	if err != nil {
		return 0, err
	}
	if params != nil {
		p.mu.Lock()
		p.params = params
		p.mu.Unlock()
	}
	return s.update(ctx, p.runner(s))
}

// readParams reads the parameter batches a client sent and converts them
// (engine.ParamsFromArrow). The batches are checked in full first: they
// come off the network and IPC decoding does not check offsets. No schema
// (a client that bound nothing) is no parameters.
func (s *Server) readParams(rdr flight.MessageReader) ([]any, error) {
	var recs []arrow.RecordBatch
	defer func() {
		for _, b := range recs {
			b.Release()
		}
	}()
	for rdr.Next() {
		b := rdr.RecordBatch()
		if err := array.ValidateRecordFull(b); err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "parameters: %v", err)
		}
		b.Retain()
		recs = append(recs, b)
	}
	if err := rdr.Err(); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "parameters: %v", err)
	}
	schema := rdr.Schema()
	if schema == nil || schema.NumFields() == 0 {
		return nil, nil
	}
	vals, err := engine.ParamsFromArrow(schema, recs)
	if err != nil {
		return nil, s.statusOf(err)
	}
	return vals, nil
}
