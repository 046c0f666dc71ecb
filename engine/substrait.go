package engine

import (
	"context"
	"fmt"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/plan/sql"
)

// ExecSubstrait runs a Substrait plan from an outside producer (protobuf
// JSON or binary) against the database's tables. params binds dynamic
// parameters by anchor ($1 is params[1]); the UNNEST list of the take
// shape is an extension_table read naming its parameter (see plan).
func (db *DB) ExecSubstrait(ctx context.Context, data []byte, params map[int]any) (*Result, error) {
	pb, err := plan.DecodePlan(data)
	if err != nil {
		return nil, err
	}
	node, err := plan.Build(ctx, pb, db.newCatalog(ctx), plan.Options{DisableIndexes: db.opt.DisableIndexes})
	if err != nil {
		return nil, err
	}
	bound := make(map[int]any, len(params))
	for k, v := range params {
		nv, err := normalizeParam(v)
		if err != nil {
			return nil, fmt.Errorf("%w: parameter $%d: %v", ErrParam, k, err)
		}
		bound[k] = nv
	}
	batches, err := db.collect(ctx, node, bound)
	if err != nil {
		return nil, err
	}
	return &Result{Schema: node.Schema(), Batches: batches, Plan: exec.Explain(node, true)}, nil
}

// SubstraitOf lowers one SELECT to a Substrait plan in protobuf JSON, with
// the names of its parameters by anchor ($k is names[k-1]).
func (db *DB) SubstraitOf(ctx context.Context, text string) ([]byte, []string, error) {
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
	js, err := plan.EncodeJSON(q.Plan)
	if err != nil {
		return nil, nil, fmt.Errorf("engine: encode plan: %w", err)
	}
	return js, q.ParamNames, nil
}
