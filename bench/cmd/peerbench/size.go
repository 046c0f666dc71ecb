package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/stablerow/stablerow/bench/duck"
	"github.com/stablerow/stablerow/bench/peer"
	"github.com/stablerow/stablerow/bench/srow"
)

// logf reports progress on stderr, so stdout stays the report.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// timed runs f and returns how long it took.
func timed(rows int, what string, f func() error) (peer.SetupStep, error) {
	start := time.Now()
	if err := f(); err != nil {
		return peer.SetupStep{}, fmt.Errorf("%d rows: %s: %w", rows, what, err)
	}
	d := time.Since(start)
	logf("%d rows: %s: %s", rows, what, d.Round(10*time.Millisecond))
	return peer.SetupStep{Rows: rows, Step: what, Took: d}, nil
}

// benchSize builds t with rows rows in both engines and measures every
// workload on it.
func benchSize(ctx context.Context, c *config, dir string, rows int) ([]*peer.Result, []peer.SetupStep, error) {
	var setup []peer.SetupStep
	step := func(what string, f func() error) error {
		s, err := timed(rows, what, f)
		if err == nil {
			setup = append(setup, s)
		}
		return err
	}
	sr, err := srow.Open(dir, srow.Options{})
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	if err := step("stablerow load", func() error { return sr.Load(ctx, uint64(rows)) }); err != nil {
		return nil, nil, err
	}
	if err := step("stablerow CREATE INDEX on _rowid", func() error {
		_, err := sr.Exec(ctx, "CREATE INDEX rid ON t USING btree (_rowid)")
		return err
	}); err != nil {
		return nil, nil, err
	}
	if err := step("stablerow CREATE INDEX on k", func() error {
		_, err := sr.Exec(ctx, "CREATE INDEX kidx ON t USING btree (k)")
		return err
	}); err != nil {
		return nil, nil, err
	}
	var tb *peer.Table
	if err := step("stablerow scan back", func() error {
		var err error
		tb, err = sr.ReadTable(ctx)
		return err
	}); err != nil {
		return nil, nil, err
	}
	if tb.Len() != rows {
		return nil, nil, fmt.Errorf("stablerow holds %d rows, want %d", tb.Len(), rows)
	}
	var plain, art *duck.DB
	defer func() {
		if plain != nil {
			plain.Close()
		}
		if art != nil {
			art.Close()
		}
	}()
	if err := step("DuckDB load", func() error {
		var err error
		if plain, err = duck.Open(c.threads); err != nil {
			return err
		}
		return plain.LoadTable(tb)
	}); err != nil {
		return nil, nil, err
	}
	if err := step("DuckDB load + CREATE UNIQUE INDEX on _rowid", func() error {
		var err error
		if art, err = duck.Open(c.threads); err != nil {
			return err
		}
		if err := art.LoadTable(tb); err != nil {
			return err
		}
		return art.IndexRowID()
	}); err != nil {
		return nil, nil, err
	}
	all := []peer.Engine{sr, plain.Engine("duckdb"), art.Engine("duckdb+ART")}
	// The ART variant shows whether DuckDB's planner uses an index on
	// _rowid for the take; it is left out where it cannot matter more
	// (payload: same join) or at all (a filter on k), to save time.
	noART := all[:2]

	idLists := make([][]uint64, len(c.ids))
	for i, n := range c.ids {
		if idLists[i], err = peer.IDs(tb, n, c.seed); err != nil {
			return nil, nil, err
		}
	}
	runs := func(n int) int {
		if n >= bigIDs {
			return c.bigRuns
		}
		return c.runs
	}
	var results []*peer.Result
	measure := func(workload string, q peer.Query, engines []peer.Engine) error {
		r, err := peer.RunCase(ctx, peer.Case{Workload: workload, Rows: rows, Query: q, Runs: runs(q.Size())}, engines, os.Stderr)
		if err != nil {
			return err
		}
		results = append(results, r)
		return nil
	}
	takes := func(workload string, kind peer.Kind, engines []peer.Engine) error {
		for _, ids := range idLists {
			if err := measure(workload, peer.Query{Kind: kind, IDs: ids}, engines); err != nil {
				return err
			}
		}
		return nil
	}
	if err := takes("take", peer.KindTake, all); err != nil {
		return nil, nil, err
	}
	if err := takes("take+payload", peer.KindTakePayload, noART); err != nil {
		return nil, nil, err
	}
	for _, n := range c.keys {
		if int64(n)*int64(rows) > c.maxKeyOps {
			logf("%d rows: k IN-list of %d keys skipped (rows*keys > -max-key-ops %d)", rows, n, c.maxKeyOps)
			continue
		}
		keys, err := peer.Keys(tb, uint64(rows), n, c.seed)
		if err != nil {
			return nil, nil, err
		}
		if err := measure("k IN-list", peer.Query{Kind: peer.KindInK, Keys: keys}, noART); err != nil {
			return nil, nil, err
		}
	}

	// Delete ~10% in every engine; all must delete the same number of rows,
	// the number the reference model gives, and then agree on every take.
	_, wantDeleted := peer.ExpectDelete(tb, peer.DeleteLimit)
	for _, e := range all {
		var got int64
		if err := step(fmt.Sprintf("%s DELETE WHERE %s", e.Name(), peer.DeletePredicate), func() error {
			var err error
			got, err = e.Delete(ctx, peer.DeletePredicate)
			return err
		}); err != nil {
			return nil, nil, err
		}
		if got != int64(wantDeleted) {
			return nil, nil, fmt.Errorf("%w: %s deleted %d rows, the reference model %d", peer.ErrMismatch, e.Name(), got, wantDeleted)
		}
	}
	if err := takes("take after delete", peer.KindTake, all); err != nil {
		return nil, nil, err
	}
	if !c.recluster {
		return results, setup, nil
	}

	// Recluster by k (a scrambled key, so every row moves) with the index
	// remap deferred: takes go through the fragment reuse history. DuckDB
	// gets the moved rows' new addresses by a reload (setup, untimed); its
	// plan cannot change, so only the plain table is rerun.
	if err := step("stablerow recluster by k (index remap deferred)", func() error { return sr.Recluster(ctx, "k") }); err != nil {
		return nil, nil, err
	}
	if err := step("stablerow scan back after recluster", func() error {
		var err error
		tb, err = sr.ReadTable(ctx)
		return err
	}); err != nil {
		return nil, nil, err
	}
	if err := step("DuckDB reload after recluster", func() error { return plain.ReloadTable(tb) }); err != nil {
		return nil, nil, err
	}
	if err := takes("take after recluster", peer.KindTake, noART); err != nil {
		return nil, nil, err
	}
	if err := step("stablerow OptimizeIndex rid", func() error { return sr.OptimizeIndex(ctx, "rid") }); err != nil {
		return nil, nil, err
	}
	if err := takes("take after optimize", peer.KindTake, noART); err != nil {
		return nil, nil, err
	}
	return results, setup, nil
}
