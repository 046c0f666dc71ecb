package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/rowmap"
	"github.com/stablerow/stablerow/table/deletion"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// demoFragment is one fragment of the demo table: its stable row ids and deletions.
type demoFragment struct {
	id   uint32
	ids  *rowid.Sequence
	dels *deletion.Vector
}

// runDemo runs the main job on the pieces that exist today: a table of
// fragments with stable row ids and deletions, the seed take query
// (UNNEST WITH ORDINALITY, LEFT JOIN on _rowid, ORDER BY ord) as an operator
// plan, checked against a reference map, and a reclustering recorded as a
// row map in the local folder.
func runDemo(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	dir := fs.String("d", ".demo", "folder for the table")
	rows := fs.Int("rows", 1_000_000, "rows in the table")
	nids := fs.Int("ids", 10_000, "ids to take")
	if err := fs.Parse(args); err != nil {
		return err
	}
	st, err := store.NewLocal(*dir)
	if err != nil {
		return err
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	rng := rand.New(rand.NewPCG(1, 2))
	const fragRows = 100_000

	// 1. Append: fragments of consecutive row ids; then delete 1 row in 8 of fragment 3.
	start := time.Now()
	var frags []demoFragment
	next := uint64(0)
	for f := uint32(0); next < uint64(*rows); f++ {
		n := min(uint64(fragRows), uint64(*rows)-next)
		frags = append(frags, demoFragment{id: f, ids: rowid.NewRange(next, next+n)})
		next += n
	}
	if len(frags) > 3 {
		var del []uint32
		for o := uint32(0); o < uint32(frags[3].ids.Len()); o += 8 {
			del = append(del, o)
		}
		frags[3].dels = deletion.New(del...)
		// An update moves rows: the deleted-by-update rows of fragment 3 keep
		// their ids in a new fragment, whose row id sequence is no longer a range.
		moved := make([]uint64, 0, len(del))
		for _, o := range del[:len(del)/2] {
			id, _ := frags[3].ids.Get(uint64(o))
			moved = append(moved, id)
		}
		rng.Shuffle(len(moved), func(i, j int) { moved[i], moved[j] = moved[j], moved[i] })
		frags = append(frags, demoFragment{id: uint32(len(frags)), ids: rowid.NewSequence(moved)})
	}
	fmt.Printf("== table: %d fragments, %d rows appended, built in %v\n", len(frags), next, time.Since(start).Round(time.Millisecond))
	for _, f := range frags {
		segs := f.ids.Segments()
		fmt.Printf("  fragment %3d: %7d physical rows, %6d deleted, row ids %d segment(s) [%s] %d bytes\n",
			f.id, f.ids.Len(), f.dels.Cardinality(), len(segs), segs[0].Kind, f.ids.EncodedSize())
	}

	// 2. The table as (_rowid, _rowaddr) batches of live rows, and a reference map.
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "_rowid", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "_rowaddr", Type: arrow.PrimitiveTypes.Uint64},
	}, nil)
	ref := make(map[uint64]uint64, *rows)
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for _, f := range frags {
		idb := array.NewUint64Builder(mem)
		adb := array.NewUint64Builder(mem)
		for o := uint64(0); o < f.ids.Len(); o++ {
			if f.dels.Contains(uint32(o)) {
				continue
			}
			id, _ := f.ids.Get(o)
			addr := uint64(rowid.NewAddress(f.id, uint32(o)))
			idb.Append(id)
			adb.Append(addr)
			ref[id] = addr
		}
		ida, ada := idb.NewArray(), adb.NewArray()
		batches = append(batches, array.NewRecordBatch(schema, []arrow.Array{ida, ada}, int64(ida.Len())))
		ida.Release()
		ada.Release()
		idb.Release()
		adb.Release()
	}

	// 3. The seed query: ~5% misses, ~5% duplicates.
	ids := make([]uint64, *nids)
	for i := range ids {
		switch r := rng.IntN(100); {
		case r < 5:
			ids[i] = uint64(*rows) + rng.Uint64N(1000)
		case r < 10 && i > 0:
			ids[i] = ids[rng.IntN(i)]
		default:
			ids[i] = rng.Uint64N(uint64(*rows))
		}
	}
	fmt.Println("\n== SELECT v.ord, t._rowaddr FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)")
	fmt.Println("   LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord")
	values, err := exec.NewValuesExec(schema, batches)
	if err != nil {
		return err
	}
	defer values.Release()
	unnest, err := exec.NewUnnestParamExec(0, arrow.PrimitiveTypes.Uint64)
	if err != nil {
		return err
	}
	join, err := exec.NewHashJoinExec(unnest, values, []int{0}, []int{0}, exec.JoinLeft)
	if err != nil {
		return err
	}
	proj, err := exec.NewProjectExec(join, []exec.Expr{exec.Col{Index: 1, Name: "ord"}, exec.Col{Index: 3, Name: "_rowaddr"}}, []string{"ord", "_rowaddr"})
	if err != nil {
		return err
	}
	var root exec.Node = proj
	if !exec.OrderingSatisfies(proj.Properties().Ordering, []exec.SortKey{{Column: 0, Name: "ord"}}) {
		if root, err = exec.NewSortExec(proj, []exec.SortKey{{Column: 0, Name: "ord"}}); err != nil {
			return err
		}
	}
	start = time.Now()
	stream, err := root.Execute(ctx, &exec.TaskContext{Mem: mem, Params: map[int]any{0: ids}})
	if err != nil {
		return err
	}
	out, err := exec.Collect(ctx, stream)
	if err != nil {
		return err
	}
	took := time.Since(start)
	// Check every output row against the reference map, in driving order.
	got, misses := 0, 0
	for _, b := range out {
		ord := b.Column(0).(*array.Int64)
		addr := b.Column(1).(*array.Uint64)
		for i := 0; i < int(b.NumRows()); i++ {
			want, ok := ref[ids[got]]
			switch {
			case ord.Value(i) != int64(got+1):
				return fmt.Errorf("demo: row %d has ord %d", got, ord.Value(i))
			case !ok && addr.IsValid(i), ok && (!addr.IsValid(i) || addr.Value(i) != want):
				return fmt.Errorf("demo: id %d: wrong address", ids[got])
			}
			if !ok {
				misses++
			}
			if got < 5 {
				a := "NULL"
				if addr.IsValid(i) {
					a = rowid.Address(addr.Value(i)).String()
				}
				fmt.Printf("   ord=%d rowid=%d _rowaddr=%s\n", ord.Value(i), ids[got], a)
			}
			got++
		}
		b.Release()
	}
	if got != len(ids) {
		return fmt.Errorf("demo: %d rows for %d ids", got, len(ids))
	}
	fmt.Printf("   ... %d rows in %v, %d misses as NULL, all checked against a reference map\n", got, took.Round(time.Microsecond), misses)
	fmt.Print(indent(exec.Explain(root, true)))

	// 4. Recluster: a stable partition of the live rows over 16 destinations, recorded as a row map.
	dests := make([]uint32, 16)
	for i := range dests {
		dests[i] = uint32(1000 + i)
	}
	sources := make([]rowmap.SourceFragment, len(frags))
	var labels []uint16
	for i, f := range frags {
		sources[i] = rowmap.SourceFragment{PhysicalRows: f.ids.Len(), Deleted: f.dels.Bitmap()}
		live := f.ids.Len() - f.dels.Cardinality()
		for j := uint64(0); j < live; j++ {
			labels = append(labels, uint16(rng.IntN(len(dests))))
		}
	}
	if sources[0].Deleted == nil {
		sources[0].Deleted = roaring.New()
	}
	w, err := rowmap.NewWriter(dests, sources, rowmap.WriterOptions{})
	if err != nil {
		return err
	}
	if err := w.Append(labels); err != nil {
		return err
	}
	file, err := w.Finish()
	if err != nil {
		return err
	}
	const rmPath = "_rowmaps/recluster-demo.rowmap"
	if err := st.Put(ctx, rmPath, file); err != nil {
		return err
	}
	rd, err := rowmap.Open(rowmap.BytesSource(file))
	if err != nil {
		return err
	}
	fmt.Printf("\n== recluster recorded: %s, %d bytes for %d source rows (%.2f bits/row)\n",
		filepath.Join(*dir, rmPath), len(file), rd.NumRows(), float64(len(file))*8/float64(rd.NumRows()))
	for _, g := range []uint64{0, 300_000, 300_008, uint64(len(labels))} {
		if g >= rd.NumRows() {
			continue
		}
		d, off, deleted, err := rd.Translate(g)
		if err != nil {
			return err
		}
		if deleted {
			fmt.Printf("   source row %7d -> deleted\n", g)
		} else {
			fmt.Printf("   source row %7d -> fragment %d offset %d\n", g, dests[d], off)
		}
	}
	fmt.Fprintf(os.Stdout, "   inspect it with: go run ./cmd/stablerow inspect %s\n", filepath.Join(*dir, rmPath))
	return nil
}

func indent(s string) string {
	out := ""
	for _, l := range splitLines(s) {
		out += "   " + l + "\n"
	}
	return out
}

func splitLines(s string) []string {
	var ls []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		ls = append(ls, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return ls
}
