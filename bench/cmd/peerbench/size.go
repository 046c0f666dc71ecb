package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/stablerow/stablerow/bench/duck"
	"github.com/stablerow/stablerow/bench/lance"
	"github.com/stablerow/stablerow/bench/peer"
	"github.com/stablerow/stablerow/bench/srow"
)

// logf reports progress on stderr, so stdout stays the report.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// sizeRun is the state of one table size's run: the engines, the model of
// what t holds, and what has been measured.
type sizeRun struct {
	c       *config
	ctx     context.Context
	rows    int
	dir     string
	model   peer.Model
	sr      *srow.Engine
	plain   *duck.DB
	art     *duck.DB
	ln      *lance.Engine // nil without -lance
	idLists [][]uint64
	results []*peer.Result
	setup   []peer.SetupStep
	facts   []string
}

func (s *sizeRun) step(what string, f func() error) error {
	start := time.Now()
	if err := f(); err != nil {
		return fmt.Errorf("%d rows: %s: %w", s.rows, what, err)
	}
	d := time.Since(start)
	logf("%d rows: %s: %s", s.rows, what, d.Round(10*time.Millisecond))
	s.setup = append(s.setup, peer.SetupStep{Rows: s.rows, Step: what, Took: d})
	return nil
}

func (s *sizeRun) fact(format string, args ...any) {
	f := fmt.Sprintf("%s rows: ", count(s.rows)) + fmt.Sprintf(format, args...)
	logf("%s", f)
	s.facts = append(s.facts, f)
}

func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dK", n/1000)
	}
	return fmt.Sprint(n)
}

func (s *sizeRun) close() {
	if s.plain != nil {
		s.plain.Close()
	}
	if s.art != nil {
		s.art.Close()
	}
	if s.ln != nil {
		s.ln.Close()
	}
}

// duckEngines are DuckDB's variants: no index; ART on _rowid and on k at
// DuckDB's default settings; the same with the index thresholds raised.
func (s *sizeRun) duckEngines() []peer.Engine {
	return []peer.Engine{
		s.plain.Engine("duckdb").WithSettings(duck.Defaults),
		s.art.Engine("duckdb+ART").WithSettings(duck.Defaults),
		s.art.Engine("duckdb+ART+tuned").WithSettings(duck.Tuned(s.c.duckThreshold)),
	}
}

// engines is stablerow, every DuckDB variant and, when lance is set and
// running, LanceDB.
func (s *sizeRun) engines(withLance bool) []peer.Engine {
	es := append([]peer.Engine{s.sr}, s.duckEngines()...)
	if withLance && s.ln != nil {
		es = append(es, s.ln)
	}
	return es
}

func (s *sizeRun) runs(n int) int {
	if n >= bigIDs {
		return s.c.bigRuns
	}
	return s.c.runs
}

func (s *sizeRun) measure(workload string, q peer.Query, engines []peer.Engine) error {
	m := s.model
	r, err := peer.RunCase(s.ctx, peer.Case{Workload: workload, Rows: s.rows, Query: q, Runs: s.runs(q.Size()), Model: &m}, engines, os.Stderr)
	if err != nil {
		return err
	}
	s.results = append(s.results, r)
	return nil
}

func (s *sizeRun) takes(workload string, kind peer.Kind, engines []peer.Engine) error {
	for _, ids := range s.idLists {
		if err := s.measure(workload, peer.Query{Kind: kind, IDs: ids}, engines); err != nil {
			return err
		}
	}
	return nil
}

// loadDuck checks stablerow's scan against the model and (re)loads both
// DuckDB databases from the model's rows (k, payload from the generator)
// with stablerow's addresses, the ART database indexed on _rowid and k.
func (s *sizeRun) loadDuck(what string) error {
	var scan *peer.Table
	if err := s.step("stablerow scan back"+what, func() error {
		var err error
		scan, err = s.sr.ReadTable(s.ctx)
		return err
	}); err != nil {
		return err
	}
	addr, err := s.model.CheckScan(scan)
	if err != nil {
		return fmt.Errorf("%d rows: stablerow's scan%s against the model: %w", s.rows, what, err)
	}
	scan = nil
	tb, err := s.model.Table(addr)
	if err != nil {
		return err
	}
	if err := s.step("DuckDB load"+what, func() error {
		if s.plain == nil {
			if s.plain, err = duck.Open(s.c.threads); err != nil {
				return err
			}
			return s.plain.LoadTable(tb)
		}
		return s.plain.ReloadTable(tb)
	}); err != nil {
		return err
	}
	return s.step("DuckDB load + CREATE UNIQUE INDEX on _rowid + CREATE INDEX on k"+what, func() error {
		if s.art == nil {
			if s.art, err = duck.Open(s.c.threads); err != nil {
				return err
			}
			if err := s.art.LoadTable(tb); err != nil {
				return err
			}
		} else if err := s.art.ReloadTable(tb); err != nil {
			return err
		}
		if err := s.art.IndexRowID(); err != nil {
			return err
		}
		return s.art.IndexK()
	})
}

func (s *sizeRun) diskBytes(what string) {
	b, err := lance.DiskBytes(filepath.Join(s.dir, "srow"))
	if err == nil {
		s.fact("stablerow on-disk bytes %s: %d (%.1f MB)", what, b, float64(b)/1e6)
	}
	if s.ln != nil {
		if b, err := lance.DiskBytes(filepath.Join(s.dir, "lance")); err == nil {
			s.fact("lancedb on-disk bytes %s: %d (%.1f MB)", what, b, float64(b)/1e6)
		}
	}
}

// cold measures the first take+payload after opening the table again, per
// id list: stablerow opens its directory with a new engine.DB, LanceDB
// connects and opens t again (the OS page cache is warm in both).
func (s *sizeRun) cold() error {
	if s.ln == nil {
		return nil
	}
	for _, ids := range s.idLists {
		q := peer.Query{Kind: peer.KindTakePayload, IDs: ids}
		res := &peer.Result{Case: peer.Case{Workload: "take+payload cold (first after open)", Rows: s.rows, Query: q, Runs: 1},
			Engines: []string{s.sr.Name(), s.ln.Name()}, Times: make([][]time.Duration, 2), Plans: make([]string, 2), Len: len(ids)}
		start := time.Now()
		sr2, err := srow.Open(filepath.Join(s.dir, "srow"), srow.Options{})
		if err != nil {
			return err
		}
		open := time.Since(start)
		start = time.Now()
		a, err := sr2.Run(s.ctx, q)
		if err != nil {
			return err
		}
		res.Times[0] = []time.Duration{time.Since(start)}
		res.Plans[0] = fmt.Sprintf("engine.Open %s, then the first take", fmtMS(open))
		res.Hits = a.(*peer.TakeRows).Hits()
		lopen, err := s.ln.Reopen(s.ctx)
		if err != nil {
			return err
		}
		d, err := s.ln.RunTimed(s.ctx, q)
		if err != nil {
			return err
		}
		res.Times[1] = []time.Duration{d}
		res.Plans[1] = fmt.Sprintf("connect + openTable %s, then the first takeRowIds", fmtMS(lopen))
		logf("%d rows: cold take+payload of %d ids: stablerow %s, lancedb %s", s.rows, len(ids), fmtMS(res.Times[0][0]), fmtMS(d))
		s.results = append(s.results, res)
	}
	return nil
}

func fmtMS(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }

// benchSize builds t with rows rows in every engine and measures every
// workload on it.
func benchSize(ctx context.Context, c *config, dir string, rows int) (*sizeRun, error) {
	s := &sizeRun{c: c, ctx: ctx, rows: rows, dir: dir, model: peer.Model{Generated: uint64(rows)}}
	defer s.close()
	defer os.RemoveAll(dir)
	var err error
	if s.sr, err = srow.Open(filepath.Join(dir, "srow"), srow.Options{}); err != nil {
		return nil, err
	}
	if err := s.step("stablerow load", func() error { return s.sr.Load(ctx, uint64(rows)) }); err != nil {
		return nil, err
	}
	for _, ix := range []string{"CREATE INDEX rid ON t USING btree (_rowid)", "CREATE INDEX kidx ON t USING btree (k)"} {
		if err := s.step("stablerow "+ix, func() error { _, err := s.sr.Exec(ctx, ix); return err }); err != nil {
			return nil, err
		}
	}
	if err := s.loadDuck(""); err != nil {
		return nil, err
	}
	if c.lance != "" {
		if s.ln, err = lance.Start(c.lance, filepath.Join(dir, "lance")); err != nil {
			return nil, err
		}
		if err := s.step("LanceDB createTable (stable row ids)", func() error { _, err := s.ln.Load(ctx, rows); return err }); err != nil {
			return nil, err
		}
	}
	s.diskBytes("after load")

	syn := peer.SyntheticTable(1, 1) // id lists need only the row ids 0..rows-1
	syn.RowID = make([]uint64, rows)
	for i := range syn.RowID {
		syn.RowID[i] = uint64(i)
	}
	s.idLists = make([][]uint64, len(c.ids))
	for i, n := range c.ids {
		if s.idLists[i], err = peer.IDs(syn, n, c.seed); err != nil {
			return nil, err
		}
	}
	if err := s.takes("take", peer.KindTake, s.engines(false)); err != nil {
		return nil, err
	}
	if err := s.takes("take+payload", peer.KindTakePayload, s.engines(true)); err != nil {
		return nil, err
	}
	keyTable := &peer.Table{K: make([]int64, rows), RowID: syn.RowID}
	for i := range keyTable.K {
		keyTable.K[i] = peer.K(uint64(i))
	}
	for _, n := range c.keys {
		if int64(n)*int64(rows) > c.maxKeyOps {
			logf("%d rows: k IN-list of %d keys skipped (rows*keys > -max-key-ops %d)", rows, n, c.maxKeyOps)
			continue
		}
		keys, err := peer.Keys(keyTable, uint64(rows), n, c.seed)
		if err != nil {
			return nil, err
		}
		if err := s.measure("k IN-list", peer.Query{Kind: peer.KindInK, Keys: keys}, s.engines(false)); err != nil {
			return nil, err
		}
	}
	keyTable, syn = nil, nil
	if err := s.cold(); err != nil {
		return nil, err
	}

	// Delete ~10% in every engine; each must delete the number of rows the
	// model gives.
	want := 0
	for id := range uint64(rows) {
		if peer.Payload(id) < peer.DeleteLimit {
			want++
		}
	}
	dels := []peer.Engine{s.sr, s.plain.Engine("duckdb"), s.art.Engine("duckdb+ART")}
	if s.ln != nil {
		dels = append(dels, s.ln)
	}
	for _, e := range dels {
		var got int64
		if err := s.step(fmt.Sprintf("%s DELETE WHERE %s", e.Name(), peer.DeletePredicate), func() error {
			got, err = e.Delete(ctx, peer.DeletePredicate)
			return err
		}); err != nil {
			return nil, err
		}
		if got != int64(want) {
			return nil, fmt.Errorf("%w: %s deleted %d rows, the model %d", peer.ErrMismatch, e.Name(), got, want)
		}
	}
	s.model.Deleted = true
	if err := s.takes("take after delete", peer.KindTake, s.engines(false)); err != nil {
		return nil, err
	}
	if err := s.takes("take+payload after delete", peer.KindTakePayload, s.engines(true)); err != nil {
		return nil, err
	}
	if !c.recluster {
		s.diskBytes("at the end")
		return s, nil
	}

	// Recluster by k (a scrambled key, so every row moves) with the index
	// remap deferred: takes go through the fragment reuse history. DuckDB
	// gets the moved rows' new addresses by a reload (setup, untimed).
	if err := s.step("stablerow recluster by k (index remap deferred)", func() error { return s.sr.Recluster(ctx, "k") }); err != nil {
		return nil, err
	}
	if err := s.loadDuck(" after recluster"); err != nil {
		return nil, err
	}
	if err := s.takes("take after recluster", peer.KindTake, s.engines(false)); err != nil {
		return nil, err
	}
	if err := s.step("stablerow OptimizeIndex rid", func() error { return s.sr.OptimizeIndex(ctx, "rid") }); err != nil {
		return nil, err
	}
	if err := s.takes("take after optimize", peer.KindTake, s.engines(false)); err != nil {
		return nil, err
	}

	// Update + compaction, in stablerow and LanceDB alike: the rows with
	// payload >= 0.9 (~10%) rewritten with their own values (new copies,
	// same row ids), then a compaction.
	var upd []uint64
	for id := range uint64(rows) {
		if s.model.Live(id) && peer.Payload(id) >= 0.9 {
			upd = append(upd, id)
		}
	}
	if err := s.step("stablerow update payload >= 0.9 (same values)", func() error {
		n, err := s.sr.UpdateSame(ctx, upd)
		if err == nil && n != uint64(len(upd)) {
			err = fmt.Errorf("%w: updated %d rows, want %d", peer.ErrMismatch, n, len(upd))
		}
		return err
	}); err != nil {
		return nil, err
	}
	if err := s.step("stablerow compact (remap deferred) + OptimizeIndex rid", func() error {
		if err := s.sr.Compact(ctx); err != nil {
			return err
		}
		return s.sr.OptimizeIndex(ctx, "rid")
	}); err != nil {
		return nil, err
	}
	if s.ln != nil {
		if err := s.step("lancedb update payload >= 0.9 (SET payload = payload)", func() error {
			_, err := s.ln.Update(ctx, "payload >= 0.9")
			return err
		}); err != nil {
			return nil, err
		}
		var stats string
		if err := s.step("lancedb optimize (compaction, old versions removed)", func() error {
			_, stats, err = s.ln.Optimize(ctx)
			return err
		}); err != nil {
			return nil, err
		}
		s.fact("lancedb optimize: %s", stats)
	}
	if err := s.loadDuck(" after update + compaction"); err != nil {
		return nil, err
	}
	for _, ids := range s.idLists {
		es := s.engines(len(ids) <= c.lanceMaxIDsRewritten)
		if s.ln != nil && len(ids) > c.lanceMaxIDsRewritten {
			logf("%d rows: LanceDB left out of take+payload after update + compaction of %d ids (-lance-max-ids-rewritten %d)", rows, len(ids), c.lanceMaxIDsRewritten)
		}
		if err := s.measure("take+payload after update + compaction", peer.Query{Kind: peer.KindTakePayload, IDs: ids}, es); err != nil {
			return nil, err
		}
	}
	s.diskBytes("at the end")
	return s, nil
}
