package server

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/priority"
	"github.com/stablerow/stablerow/fileio"
)

// runner is one statement: SQL text or a Substrait plan with its bound
// parameters. run starts it on ctx.
type runner struct {
	run    func(ctx context.Context) (*engine.Rows, error)
	sql    string // SQL text, or
	plan   []byte // a Substrait plan
	params []any
	// txn is the transaction the statement runs in (nil: its own), held
	// (acquireTxn) by the caller until the statement's rows are closed.
	txn *txn
}

func (s *Server) sqlRunner(text string, params []any, t *txn) runner {
	return runner{sql: text, params: params, txn: t, run: func(ctx context.Context) (*engine.Rows, error) {
		if t != nil {
			return t.sess.Query(s.stmtCtx(ctx), text, engine.PositionalParams(params))
		}
		return s.db.Query(s.stmtCtx(ctx), text, engine.PositionalParams(params))
	}}
}

func (s *Server) substraitRunner(plan []byte, params []any, t *txn) runner {
	return runner{plan: plan, params: params, txn: t, run: func(ctx context.Context) (*engine.Rows, error) {
		if t != nil {
			return t.sess.QuerySubstrait(s.stmtCtx(ctx), plan, engine.AnchorParams(params))
		}
		return s.db.QuerySubstrait(s.stmtCtx(ctx), plan, engine.AnchorParams(params))
	}}
}

// txnOf acquires the transaction of id for a call (nil for no id); the
// caller releases it (s.done).
func (s *Server) txnOf(ctx context.Context, id []byte) (*txn, error) {
	if len(id) == 0 {
		return nil, nil
	}
	return s.acquireTxn(ctx, id)
}

// done releases the transaction a call held, if any.
func (s *Server) done(t *txn) {
	if t != nil {
		s.release(t)
	}
}

// stmtCtx runs a statement under the server's rules: its file policy
// (fileCtx), its memory budget (budget.go: the statement is admitted once
// planned), and no value bound to no parameter.
func (s *Server) stmtCtx(ctx context.Context) context.Context {
	ctx = engine.WithExactParams(s.fileCtx(ctx))
	if s.budget != nil {
		ctx = engine.WithAdmission(ctx, s.budget.admit)
	}
	if s.gate != nil {
		ctx = engine.WithPriority(ctx, s.gate)
	}
	return ctx
}

// fileCtx runs a statement under the server's file policy: a network
// client reaches files only inside Options.Files, never with the local
// CLI's unrestricted access.
func (s *Server) fileCtx(ctx context.Context) context.Context {
	return engine.WithFilePolicy(ctx, fileio.Policy{Root: s.opt.Files, AllowHardLinks: s.opt.FilesAllowHardLinks})
}

// start plans and starts a statement for GetFlightInfo and registers its
// rows under a ticket; a large take is split into several endpoints
// instead (takesplit.go). The rows run on a context of their own (the call's
// values, not its end: they outlive GetFlightInfo until their DoGet), yet
// a client that goes away while the statement starts still stops it.
//
// In a transaction the result holds it (acquireTxn) until the rows are
// closed: they read the session's snapshot while they stream.
func (s *Server) start(ctx context.Context, run runner, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	held := run.txn
	defer func() { s.done(held) }()
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	rows, err := run.run(rctx)
	stop()
	if err != nil {
		cancel()
		return nil, s.statusOf(err)
	}
	info := &flight.FlightInfo{FlightDescriptor: desc, TotalRecords: -1, TotalBytes: -1}
	schema := rows.Schema()
	if len(run.params) > 0 && schema != nil && run.txn == nil {
		// (In a transaction the endpoints could not read its snapshot:
		// they run as statements of their own.)
		// Planned (so its errors are reported) but not read: a take the
		// server can split is served by its endpoints instead.
		p, ok, err := s.split(ctx, run.plan, run.sql, run.params, schema)
		if err != nil || ok {
			rows.Close()
			cancel()
			if err != nil {
				return nil, s.statusOf(err)
			}
			return s.splitInfo(p, desc)
		}
	}
	if schema == nil {
		// A statement without a result set ran to completion: its result
		// is no rows of no columns, and no endpoint.
		rows.Close()
		cancel()
		info.Schema = flight.SerializeSchema(arrow.NewSchema(nil, nil), s.mem)
		info.TotalRecords = 0
		return info, nil
	}
	var light *priority.Ticket
	if !priority.TicketOf(ctx).Demoted() {
		light = s.gate.Light() // until its DoGet ends (priority.go)
	}
	var release func()
	if t := run.txn; t != nil {
		held, release = nil, func() { s.release(t) }
	}
	h := s.results.add(rctx, rows, cancel, light, release)
	ticket, err := flightsql.CreateStatementQueryTicket([]byte(h))
	if err != nil {
		s.results.cancel(h)
		return nil, status.Errorf(codes.Internal, "make ticket: %v", err)
	}
	info.Schema = flight.SerializeSchema(schema, s.mem)
	info.Endpoint = []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: ticket}}}
	return info, nil
}

// GetFlightInfoStatement starts a SQL query.
func (s *Server) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	t, err := s.txnOf(ctx, cmd.GetTransactionId())
	if err != nil {
		return nil, err
	}
	return s.start(ctx, s.sqlRunner(cmd.GetQuery(), nil, t), desc)
}

// GetFlightInfoSubstraitPlan starts a Substrait plan (protobuf binary or
// JSON).
func (s *Server) GetFlightInfoSubstraitPlan(ctx context.Context, cmd flightsql.StatementSubstraitPlan, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	t, err := s.txnOf(ctx, cmd.GetTransactionId())
	if err != nil {
		return nil, err
	}
	return s.start(ctx, s.substraitRunner(cmd.GetPlan().Plan, nil, t), desc)
}

// DoGetStatement streams a started result, batch by batch.
func (s *Server) DoGetStatement(ctx context.Context, t flightsql.StatementQueryTicket) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	h := string(t.GetStatementHandle())
	if isEndpointTicket(t.GetStatementHandle()) {
		p, ep, err := s.splits.begin(t.GetStatementHandle())
		if err != nil {
			return nil, nil, err
		}
		schema, ch := s.streamEndpoint(ctx, p, ep)
		return schema, ch, nil
	}
	r, ok := s.results.take(h)
	if !ok {
		return nil, nil, status.Error(codes.NotFound, "no such result: it was read already, cancelled, or expired")
	}
	if r.light == nil {
		priority.TicketOf(ctx).Demote() // a heavy statement's stream
	}
	schema, ch := s.results.stream(ctx, h, r, s.statusOf)
	return schema, ch, nil
}

// DoPutCommandStatementUpdate runs DML or DDL (a query's rows are read and
// dropped) and returns the rows it affected.
func (s *Server) DoPutCommandStatementUpdate(ctx context.Context, cmd flightsql.StatementUpdate) (int64, error) {
	t, err := s.txnOf(ctx, cmd.GetTransactionId())
	if err != nil {
		return 0, err
	}
	return s.update(ctx, s.sqlRunner(cmd.GetQuery(), nil, t))
}

// DoPutCommandSubstraitPlan runs a Substrait plan to completion.
func (s *Server) DoPutCommandSubstraitPlan(ctx context.Context, cmd flightsql.StatementSubstraitPlan) (int64, error) {
	t, err := s.txnOf(ctx, cmd.GetTransactionId())
	if err != nil {
		return 0, err
	}
	return s.update(ctx, s.substraitRunner(cmd.GetPlan().Plan, nil, t))
}

// update runs a statement to its end on the call's context, then
// releases its transaction (if any).
func (s *Server) update(ctx context.Context, run runner) (int64, error) {
	defer s.done(run.txn)
	rows, err := run.run(ctx)
	if err != nil {
		return 0, s.statusOf(err)
	}
	for rows.Next() {
	}
	if err := rows.Close(); err != nil {
		return 0, s.statusOf(err)
	}
	return rows.RowsAffected(), nil
}

// CancelFlightInfo cancels the results of a FlightInfo's endpoints.
func (s *Server) CancelFlightInfo(_ context.Context, req *flight.CancelFlightInfoRequest) (flight.CancelFlightInfoResult, error) {
	st := flight.CancelStatusNotCancellable
	for _, e := range req.GetInfo().GetEndpoint() {
		t, err := flightsql.GetStatementQueryTicket(e.GetTicket())
		if err != nil {
			continue
		}
		h := t.GetStatementHandle()
		if isEndpointTicket(h) && s.splits.cancelTicket(h) || s.results.cancel(string(h)) {
			st = flight.CancelStatusCancelled
		}
	}
	return flight.CancelFlightInfoResult{Status: st}, nil
}
