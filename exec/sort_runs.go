package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// How SortExec stays within its reservation, as PostgreSQL's tuplesort
// does within work_mem: it reserves what a run costs before it buffers the
// rows (the rows, their sorted copy and the sort's scratch), spills the
// run it holds when the pool refuses (tuplesort's switch to an external
// sort, dumptuples), and merges the runs with a fan-in bounded by the
// read buffers it can reserve (tuplesort_merge_order), in more than one
// pass when they do not all fit (mergeruns' polyphase passes).
//
//	batch ──reserve──▶ buffered            refused, rows buffered: spill them as a run, try again
//	                                       refused, nothing buffered: split the batch in half, try the head
//	                                       refused, one row: ErrResourceExhausted (SortExec)
//	EOF ──▶ no runs: sort in memory
//	        runs: reserve the merge of all (read batch + buffer per run, the output)
//	              refused: a round merging consecutive groups of runs as wide as fit, again
//
// A run of fewer rows than a batch is what lets a sort under a limit
// smaller than one input batch finish: the scratch is per row, and a
// batch's rows can be sorted in as many runs as the limit needs.

// sortScratchPerRow is what sortBatches allocates per row beside the data
// (sort_keys.go): the normalized word and row (16 bytes), the radix pass's
// copy of them (16), the first key's words kept while the later keys sort
// (8) and the output index (8). Reserving only the 8-byte index let a sort
// of 10M rows hold 400 MB more than the pool counted.
const sortScratchPerRow = 48

// sortNeed is what buffering b costs: b, its sorted copy, the scratch.
func sortNeed(b arrow.RecordBatch) int64 {
	return 2*BatchBytes(b) + sortScratchPerRow*b.NumRows()
}

// sortRun is one sorted run in a spill file.
type sortRun struct {
	path       string
	rows       int64
	chunkBytes int64 // the file's largest batch: what reading it back holds
	rowBytes   int64 // the largest bytes per row of a batch, for the merge's output
}

// spillIOBuffer is the file buffer for batches of chunk bytes: the batch's
// size, within 4 KiB and 1 MiB. A fixed 1 MiB buffer per open run made a
// merge of many small runs hold far more than its runs.
func spillIOBuffer(chunk int64) int {
	return int(min(max(chunk, 256), 1<<20))
}

// readCost is what an open run holds during a merge: one batch and its
// file buffer.
func (r sortRun) readCost() int64 { return r.chunkBytes + int64(spillIOBuffer(r.chunkBytes)) }

// mergeNeed is what merging runs into batches of out rows holds: each
// run's read cost and the output batch being built (its rows taken from
// the pieces and put in order, two copies), plus the file buffer of the
// run it writes when write is set (a pass that is not the last).
func mergeNeed(runs []sortRun, out int64, write bool) int64 {
	var n, rowBytes int64
	for _, r := range runs {
		n += r.readCost()
		rowBytes = max(rowBytes, r.rowBytes)
	}
	n += 2 * out * rowBytes
	if write {
		n += int64(spillIOBuffer(out * rowBytes))
	}
	return n
}

// runWriter writes one sorted run and records its batch sizes.
type runWriter struct {
	w   *SpillWriter
	run sortRun
}

func newRunWriter(d *spillDir, mem memory.Allocator, schema *arrow.Schema, chunk int64) (*runWriter, error) {
	f, err := d.create()
	if err != nil {
		return nil, err
	}
	return &runWriter{w: newSpillWriterBuffered(f, f, schema, mem, spillIOBuffer(chunk)), run: sortRun{path: f.Name()}}, nil
}

func (w *runWriter) write(b arrow.RecordBatch) error {
	n := BatchBytes(b)
	w.run.chunkBytes = max(w.run.chunkBytes, n)
	if rows := b.NumRows(); rows > 0 {
		w.run.rowBytes = max(w.run.rowBytes, (n+rows-1)/rows)
	}
	w.run.rows += b.NumRows()
	return w.w.Write(b)
}

// finish closes the file; the run and the file's size.
func (w *runWriter) finish() (sortRun, int64, error) {
	size, err := w.w.Finish()
	return w.run, size, err
}

// writeSortedRun writes sorted (which the caller keeps) as a run of
// batches of at most chunk rows.
func writeSortedRun(d *spillDir, mem memory.Allocator, sorted arrow.RecordBatch, chunk int64) (sortRun, int64, error) {
	n := sorted.NumRows()
	est := BatchBytes(sorted)
	if n > chunk {
		est = est / n * chunk
	}
	w, err := newRunWriter(d, mem, sorted.Schema(), est)
	if err != nil {
		return sortRun{}, 0, err
	}
	for off := int64(0); off < n; off += chunk {
		s := sorted.NewSlice(off, min(n, off+chunk))
		err := w.write(s)
		s.Release()
		if err != nil {
			w.w.Abort()
			return sortRun{}, 0, err
		}
	}
	return w.finish()
}

// openSortRun opens r for a merge, through a buffer of its batch's size.
func openSortRun(r sortRun, mem memory.Allocator) (*fileRun, error) {
	f, err := os.Open(r.path)
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	sr, err := newSpillReaderBuffered(f, mem, spillIOBuffer(r.chunkBytes))
	if err != nil {
		return nil, err
	}
	return &fileRun{r: sr}, nil
}

// buffer reserves b's rows and buffers them (it takes b). When the pool
// refuses, it spills what is buffered and tries again; when nothing is
// buffered, b alone is more than the pool gives, and it buffers b half by
// half (slices: the halves share b's buffers), down to one row, which
// alone is the typed memory-limit error.
func (s *sortStream) buffer(ctx context.Context, b arrow.RecordBatch) error {
	pending := []arrow.RecordBatch{b} // a stack: the next piece last
	defer func() {
		for _, p := range pending {
			p.Release()
		}
	}()
	for len(pending) > 0 {
		p := pending[len(pending)-1]
		err := s.res.TryGrow(sortNeed(p))
		switch {
		case err == nil:
			s.buf = append(s.buf, p)
			pending = pending[:len(pending)-1]
		case len(s.buf) > 0:
			if err := s.spillBuffer(ctx); err != nil {
				return err
			}
		case p.NumRows() == 1:
			return fmt.Errorf("sort: one row does not fit: %w", err)
		default:
			half := p.NumRows() / 2
			head, tail := p.NewSlice(0, half), p.NewSlice(half, p.NumRows())
			p.Release()
			pending[len(pending)-1] = tail
			pending = append(pending, head) // head first: runs stay in input order
			s.n.metrics.Add("split_batches", 1)
		}
	}
	return nil
}

// fitMerge makes the merge of s.runs (and tail, the sorted rows still in
// memory, whose bytes the reservation holds; nil if none) fit the pool:
// it spills tail when the merge does not fit beside it, then merges runs
// in rounds, each merging consecutive groups as wide as fit, until all of
// them fit (each round at least halves the runs). It returns the tail left
// in memory and the rows of the merge's output batches, whose reservation
// it holds.
func (s *sortStream) fitMerge(ctx context.Context, tail arrow.RecordBatch) (arrow.RecordBatch, int64, error) {
	out := int64(s.tc.RowsPerBatch())
	if s.res.TryGrow(mergeNeed(s.runs, out, false)) == nil {
		return tail, out, nil
	}
	if tail != nil {
		err := s.spillSorted(tail)
		tail.Release()
		if err != nil {
			return nil, 0, err
		}
		s.res.Free()
	}
	for {
		if s.res.TryGrow(mergeNeed(s.runs, out, false)) == nil {
			return nil, out, nil
		}
		if len(s.runs) == 1 { // one run is read, not merged: its batch and buffer
			o, err := s.fitOne(out)
			return nil, o, err
		}
		next := make([]sortRun, 0, len(s.runs)/2+1)
		for rest := s.runs; len(rest) > 0; {
			if len(rest) == 1 {
				next = append(next, rest[0])
				break
			}
			k, o, err := s.fitGroup(rest, out)
			if err != nil {
				return nil, 0, err
			}
			need := mergeNeed(rest[:k], o, true)
			run, err := s.mergeRuns(ctx, rest[:k], o)
			s.res.Shrink(need)
			if err != nil {
				return nil, 0, err
			}
			next = append(next, run)
			rest = rest[k:]
		}
		s.runs = next
		s.n.metrics.Add("merge_passes", 1)
	}
}

// fitOne reserves the reading back of the one run left, with output
// batches of out rows or fewer (the rows out it holds).
func (s *sortStream) fitOne(out int64) (int64, error) {
	for {
		err := s.res.TryGrow(mergeNeed(s.runs, out, false))
		switch {
		case err == nil:
			return out, nil
		case out == 1:
			return 0, fmt.Errorf("sort: a run's batch does not fit: %w", err)
		}
		out /= 2
	}
}

// fitGroup reserves the merge of the widest prefix of runs that fits
// (halving down to two), with output batches of out rows or, when two
// runs do not fit so, fewer: the prefix's length and the output batch's
// rows. Two runs not fitting with one-row output batches is the typed
// memory-limit error.
func (s *sortStream) fitGroup(runs []sortRun, out int64) (int, int64, error) {
	k := len(runs)
	for {
		err := s.res.TryGrow(mergeNeed(runs[:k], out, true))
		if err == nil {
			return k, out, nil
		}
		switch {
		case k > 2:
			k = max(2, k/2)
		case out > 1:
			out /= 2
		default:
			return 0, 0, fmt.Errorf("sort: two runs' read buffers do not fit: %w", err)
		}
	}
}

// mergeRuns merges runs (consecutive: ties keep their order) into one run
// of batches of out rows, and removes their files.
func (s *sortStream) mergeRuns(ctx context.Context, runs []sortRun, out int64) (_ sortRun, err error) {
	mem := s.tc.Allocator()
	m, err := s.openMerge(ctx, runs, nil)
	if err != nil {
		return sortRun{}, err
	}
	defer func() {
		if cerr := m.close(); err == nil {
			err = cerr
		}
	}()
	var rowBytes int64
	for _, r := range runs {
		rowBytes = max(rowBytes, r.rowBytes)
	}
	w, err := newRunWriter(&s.spill, mem, s.n.Schema(), out*rowBytes)
	if err != nil {
		return sortRun{}, err
	}
	for {
		b, err := m.next(ctx, int(out))
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			err = w.write(b)
			b.Release()
		}
		if err != nil {
			w.w.Abort()
			return sortRun{}, err
		}
	}
	run, size, err := w.finish()
	if err != nil {
		return sortRun{}, err
	}
	for _, r := range runs {
		if err := os.Remove(r.path); err != nil {
			return sortRun{}, fmt.Errorf("spill: %w", err)
		}
	}
	s.n.metrics.Add("merged_runs", int64(len(runs)))
	s.n.metrics.Add("spilled_bytes", size)
	return run, nil
}

// openMerge opens runs (and tail last, the latest input, if not nil; the
// merge takes it) as one k-way merge.
func (s *sortStream) openMerge(ctx context.Context, runs []sortRun, tail arrow.RecordBatch) (*kwayMerge, error) {
	srcs := make([]runSource, 0, len(runs)+1)
	for _, r := range runs {
		src, err := openSortRun(r, s.tc.Allocator())
		if err != nil {
			for _, r := range srcs {
				r.close()
			}
			if tail != nil {
				tail.Release()
			}
			return nil, err
		}
		srcs = append(srcs, src)
	}
	if tail != nil {
		srcs = append(srcs, &memRun{b: tail, chunk: int64(s.tc.RowsPerBatch())})
	}
	return newKWayMerge(ctx, s.n.Schema(), s.n.keys, s.tc.Allocator(), srcs) // closes srcs on error
}

// spillSorted writes sorted (the caller keeps it) as a run.
func (s *sortStream) spillSorted(sorted arrow.RecordBatch) error {
	run, size, err := writeSortedRun(&s.spill, s.tc.Allocator(), sorted, int64(s.tc.RowsPerBatch()))
	if err != nil {
		return err
	}
	s.runs = append(s.runs, run)
	s.n.metrics.Add("spill_count", 1)
	s.n.metrics.Add("spilled_rows", run.rows)
	s.n.metrics.Add("spilled_bytes", size)
	return nil
}
