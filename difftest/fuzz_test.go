package difftest

import (
	"context"
	"testing"

	"github.com/stablerow/stablerow/engine"
)

// FuzzGeneratedCase runs generated cases on stablerow alone, twice: at
// batch size 8192 with indexes and at batch size 1 without, in the seat
// of PostgreSQL and of stablerow. Without a server it still finds panics,
// leaks (checked allocator) and answers that depend on the batch size or
// on the plan; the fuzzer explores seeds and case numbers.
func FuzzGeneratedCase(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 4} {
		for _, i := range []uint32{0, 9, 24, 104} {
			f.Add(s, i)
		}
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, seed uint64, i uint32) {
		g := caseGen(seed, int(i))
		c := g.Case()
		ref := NewStablerow(engine.Options{})
		r := &Runner{PG: ref, SR: NewStablerow(engine.Options{})}
		d, err := r.RunCase(ctx, c, engine.Options{BatchSize: 1, DisableIndexes: true})
		if err != nil {
			t.Fatal(err)
		}
		if ref.Leaked() != 0 {
			t.Fatalf("reference run leaked %d bytes", ref.Leaked())
		}
		if d != nil {
			t.Fatalf("batch 8192 with indexes vs batch 1 without:\n%s", d.Report())
		}
	})
}
