package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

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
	// txnID is the transaction it was prepared in (empty: none): every
	// execution runs in it, as Flight SQL's prepared statement carries
	// its transaction from CreatePreparedStatement on.
	txnID []byte

	mu       sync.Mutex
	params   []any       // bound values, $1 first (nil: none bound)
	held     *heldParams // the budget params hold (uploads.go)
	lastUsed time.Time   // a statement unused for Options.PreparedTTL is dropped
	expiry   *time.Timer // drops it once unused for the TTL
	dropped  bool
}

// bind replaces the bound parameters, releasing what the old ones held.
// A statement dropped meanwhile keeps nothing.
func (p *prepared) bind(params []any, held *heldParams) {
	p.mu.Lock()
	old := p.held
	if p.dropped {
		old, held, params = held, nil, nil
	}
	p.params, p.held = params, held
	p.mu.Unlock()
	old.release()
}

// drop releases what the statement holds; it cannot be bound again.
func (p *prepared) drop() {
	p.mu.Lock()
	held := p.held
	p.params, p.held, p.dropped = nil, nil, true
	if p.expiry != nil {
		p.expiry.Stop()
	}
	p.mu.Unlock()
	held.release()
}

func (p *prepared) runner(s *Server, t *txn) runner {
	p.mu.Lock()
	params := p.params
	p.mu.Unlock()
	return p.runnerWith(s, params, t)
}

// runnerWith runs the statement with params, whatever is bound, in t
// (acquired from p.txnID; nil: none).
func (p *prepared) runnerWith(s *Server, params []any, t *txn) runner {
	if p.plan != nil {
		return s.substraitRunner(p.plan, params, t)
	}
	return s.sqlRunner(p.sql, params, t)
}

// addPrepared registers p, to be dropped once unused for
// Options.PreparedTTL: a client that never closes its statements (or
// died) must not hold their parameters, nor grow the server, for ever.
func (s *Server) addPrepared(p *prepared) []byte {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	p.lastUsed = s.opt.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prepared[h] = p
	p.mu.Lock() // the timer's function reads p.expiry under p.mu
	p.expiry = time.AfterFunc(s.opt.PreparedTTL, func() { s.expirePrepared(h, p) })
	p.mu.Unlock()
	return []byte(h)
}

// expirePrepared drops p if it went unused for the TTL, else looks again
// when it would have.
func (s *Server) expirePrepared(h string, p *prepared) {
	p.mu.Lock()
	left := s.opt.PreparedTTL - s.opt.now().Sub(p.lastUsed)
	if left > 0 && !p.dropped {
		p.expiry.Reset(left)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	s.dropPrepared(h)
}

// dropPrepared forgets a prepared statement and releases its parameters.
func (s *Server) dropPrepared(h string) {
	s.mu.Lock()
	p, ok := s.prepared[h]
	delete(s.prepared, h)
	s.mu.Unlock()
	if ok {
		p.drop()
	}
}

// dropAllPrepared drops every prepared statement (server shutdown).
func (s *Server) dropAllPrepared() {
	s.mu.Lock()
	hs := make([]string, 0, len(s.prepared))
	for h := range s.prepared {
		hs = append(hs, h)
	}
	s.mu.Unlock()
	for _, h := range hs {
		s.dropPrepared(h)
	}
}

func (s *Server) preparedOf(handle []byte) (*prepared, error) {
	s.mu.Lock()
	p, ok := s.prepared[string(handle)]
	s.mu.Unlock()
	if !ok {
		return nil, status.Error(codes.NotFound, "no such prepared statement (closed, unused too long, or of another server)")
	}
	p.mu.Lock()
	p.lastUsed = s.opt.now()
	p.mu.Unlock()
	return p, nil
}

// CreatePreparedStatement prepares SQL text. The statement is parsed and
// planned now, not run, as PostgreSQL's PREPARE analyses it and its
// Describe answers (engine.DB.Describe): the result carries the parameter
// schema a JDBC or ADBC client binds by, and the dataset schema of the
// rows it will return (no fields for a statement without a result set),
// and a bad statement fails here.
func (s *Server) CreatePreparedStatement(ctx context.Context, req flightsql.ActionCreatePreparedStatementRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	if err := s.checkTxn(ctx, req.GetTransactionId()); err != nil {
		return flightsql.ActionCreatePreparedStatementResult{}, err
	}
	d, err := s.db.Describe(s.fileCtx(ctx), req.GetQuery(), nil)
	if err != nil {
		return flightsql.ActionCreatePreparedStatementResult{}, s.statusOf(err)
	}
	return preparedResult(s.addPrepared(&prepared{sql: req.GetQuery(), txnID: req.GetTransactionId()}), d), nil
}

// CreatePreparedSubstraitPlan prepares a Substrait plan, described as
// CreatePreparedStatement describes SQL.
func (s *Server) CreatePreparedSubstraitPlan(ctx context.Context, req flightsql.ActionCreatePreparedSubstraitPlanRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	if err := s.checkTxn(ctx, req.GetTransactionId()); err != nil {
		return flightsql.ActionCreatePreparedStatementResult{}, err
	}
	plan := req.GetPlan().Plan
	if plan == nil {
		plan = []byte{}
	}
	d, err := s.db.Describe(s.fileCtx(ctx), "", plan)
	if err != nil {
		return flightsql.ActionCreatePreparedStatementResult{}, s.statusOf(err)
	}
	return preparedResult(s.addPrepared(&prepared{plan: plan, txnID: req.GetTransactionId()}), d), nil
}

// preparedResult is the answer to a prepare: the handle, the two
// schemas, and Flight SQL's is_update hint (a statement without a result
// set runs as an update). A script's rows are known only once it runs:
// its dataset schema and the hint are left unset, so the client chooses.
func preparedResult(handle []byte, d engine.Description) flightsql.ActionCreatePreparedStatementResult {
	r := flightsql.ActionCreatePreparedStatementResult{Handle: handle, ParameterSchema: d.Params, DatasetSchema: d.Result}
	if d.Result != nil {
		update := d.Result.NumFields() == 0
		r.IsUpdate = &update
	}
	return r
}

// ClosePreparedStatement forgets a prepared statement.
func (s *Server) ClosePreparedStatement(_ context.Context, req flightsql.ActionClosePreparedStatementRequest) error {
	s.dropPrepared(string(req.GetPreparedStatementHandle()))
	return nil
}

// DoPutPreparedStatementQuery binds parameters to a prepared query.
func (s *Server) DoPutPreparedStatementQuery(ctx context.Context, cmd flightsql.PreparedStatementQuery, rdr flight.MessageReader, _ flight.MetadataWriter) ([]byte, error) {
	p, err := s.preparedOf(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	params, held, err := s.readParams(ctx, p, rdr, uploadBind)
	if err != nil {
		return nil, err
	}
	p.bind(params, held)
	return cmd.GetPreparedStatementHandle(), nil
}

// GetFlightInfoPreparedStatement starts a prepared query with its bound
// parameters.
func (s *Server) GetFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	p, err := s.preparedOf(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	t, err := s.txnOf(ctx, p.txnID)
	if err != nil {
		return nil, err
	}
	return s.start(ctx, p.runner(s, t), desc)
}

// DoPutPreparedStatementUpdate runs a prepared DML statement with the
// parameters sent along.
func (s *Server) DoPutPreparedStatementUpdate(ctx context.Context, cmd flightsql.PreparedStatementUpdate, rdr flight.MessageReader) (int64, error) {
	p, err := s.preparedOf(cmd.GetPreparedStatementHandle())
	if err != nil {
		return 0, err
	}
	params, held, err := s.readParams(ctx, p, rdr, uploadRun)
	if err != nil {
		return 0, err
	}
	t, err := s.txnOf(ctx, p.txnID)
	if err != nil {
		held.release()
		if len(params) == 1 {
			if src, ok := params[0].(*uploadSource); ok {
				src.close()
			}
		}
		return 0, err
	}
	if len(params) == 1 {
		if src, ok := params[0].(*uploadSource); ok {
			// Streamed into this run (uploads.go): it is read once, so the
			// statement keeps nothing bound.
			defer held.release()
			defer src.close()
			p.bind(nil, nil)
			return s.update(ctx, p.runnerWith(s, params, t))
		}
	}
	if params != nil {
		p.bind(params, held)
	}
	return s.update(ctx, p.runner(s, t))
}
