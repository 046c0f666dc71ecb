package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// ExecSubstrait runs a Substrait plan from an outside producer (protobuf
// JSON or binary) against the database's tables and reads its result to
// the end (QuerySubstrait streams it). params binds dynamic parameters by
// anchor ($1 is params[1]); the UNNEST list of the take shape is an
// extension_table read naming its parameter (see plan).
func (db *DB) ExecSubstrait(ctx context.Context, data []byte, params map[int]any) (*Result, error) {
	rows, err := db.QuerySubstrait(ctx, data, params)
	if err != nil {
		return nil, err
	}
	return rows.collect()
}

// QuerySubstrait plans a Substrait plan and returns its rows as a stream
// (see Rows). A panic while planning or running comes back as an
// *InternalError.
func (db *DB) QuerySubstrait(ctx context.Context, data []byte, params map[int]any) (rows *Rows, err error) {
	return db.querySubstrait(ctx, db.newCatalog(ctx), data, params)
}

// querySubstrait plans and starts a plan on cat (a session's catalog
// reads its transaction's snapshot).
func (db *DB) querySubstrait(ctx context.Context, cat *catalog, data []byte, params map[int]any) (rows *Rows, err error) {
	defer recoverInternal(&err)
	pb, err := plan.DecodePlan(data)
	if err != nil {
		return nil, err
	}
	node, err := db.buildSubstrait(ctx, cat, pb)
	if err != nil {
		return nil, err
	}
	bound := make(map[int]any, len(params))
	for k, v := range params {
		nv, err := normalizeParam(v)
		if err != nil {
			return nil, fmt.Errorf("%w: parameter $%d: %w", ErrParam, k, err)
		}
		bound[k] = nv
	}
	rows, err = db.execute(ctx, node, bound)
	if err != nil {
		var pe *plan.ParamError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%w: parameter $%d: %w", ErrParam, pe.Ref, err)
		}
		return nil, err
	}
	return rows, nil
}

// buildSubstrait plans a decoded Substrait plan on cat.
func (db *DB) buildSubstrait(ctx context.Context, cat *catalog, pb *substraitpb.Plan) (exec.Node, error) {
	return plan.Build(ctx, pb, cat, plan.Options{DisableIndexes: db.opt.DisableIndexes, DisableSharing: db.opt.DisableSharing, DisableRollup: db.opt.DisableRollup, Files: db.files(ctx), Threads: db.Threads(), MemoryLimited: db.memoryLimited(ctx)})
}

// SubstraitOf lowers one SELECT to a Substrait plan in protobuf JSON, with
// the names of its parameters by anchor ($k is names[k-1]).
func (db *DB) SubstraitOf(ctx context.Context, text string) (js []byte, names []string, err error) {
	p, names, err := db.SubstraitPlanOf(ctx, text)
	if err != nil {
		return nil, nil, err
	}
	// The plan is for a reader outside the engine: long IN lists are
	// written as standard list literals, not stablerow's packed ones.
	if err := plan.ExpandPackedLists(p); err != nil {
		return nil, nil, err
	}
	js, err = plan.EncodeJSON(p)
	if err != nil {
		return nil, nil, fmt.Errorf("engine: encode plan: %w", err)
	}
	return js, names, nil
}

// SubstraitPlanOf is SubstraitOf without the encoding: the plan as it was
// lowered (long IN lists still packed, as the planner reads them). A caller that only looks at the plan (the server's take-shape
// match) uses it: indented JSON of a statement nested n deep is O(n²)
// bytes (each level indents everything below it), hundreds of MB for a
// few hundred UNIONs, where the plan itself grows with the statement.
func (db *DB) SubstraitPlanOf(ctx context.Context, text string) (p *substraitpb.Plan, names []string, err error) {
	defer recoverInternal(&err)
	stmts, err := sql.Parse(text, db.newCatalog(ctx))
	if err != nil {
		return nil, nil, err
	}
	if len(stmts) != 1 {
		return nil, nil, fmt.Errorf("%w: one SELECT, got %d statements", ErrUnsupported, len(stmts))
	}
	q, ok := stmts[0].(*sql.Query)
	if !ok || q.Explain {
		return nil, nil, fmt.Errorf("%w: only a SELECT lowers to a Substrait plan", ErrUnsupported)
	}
	return q.Plan, q.ParamNames, nil
}

// QuerySubstrait is DB.QuerySubstrait in the session: the plan reads the
// open transaction's snapshot (and its own writes), as the session's SQL
// does, and an error aborts the transaction (Session.fail). A Flight SQL
// client sends a plan with a transaction id for this.
func (s *Session) QuerySubstrait(ctx context.Context, data []byte, params map[int]any) (rows *Rows, err error) {
	if s.tx != nil && s.tx.failed {
		return nil, ErrTxnAborted
	}
	defer func() {
		if err != nil {
			s.fail(err)
		}
	}()
	rows, err = s.db.querySubstrait(ctx, s.db.sessionCatalog(ctx, s), data, params)
	if err != nil || s.tx == nil {
		return rows, err
	}
	tx := s.tx
	rows.onFail = func(error) {
		if s.tx == tx {
			s.abort()
		}
	}
	return rows, nil
}

// sessionCatalog is the catalog of a statement run in session s.
func (db *DB) sessionCatalog(ctx context.Context, s *Session) *catalog {
	cat := db.newCatalog(ctx)
	cat.sess = s
	return cat
}
