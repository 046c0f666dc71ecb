package access

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/table/rowid"
)

// modelPlan is the reference model of PlanTake's tasks: every id located
// one at a time through the row id sequences (Table.Locate), the found
// ones sorted by (fragment, offset, input position) with a comparison
// sort, cut into chunks of max rows within a fragment.
func modelPlan(t *testing.T, ids []uint64, locate func([]uint64) ([]uint64, []bool), max int) ([]TakeTask, []uint64) {
	t.Helper()
	type row struct {
		addr rowid.Address
		pos  uint64
	}
	var rows []row
	var missing []uint64
	for i, id := range ids {
		a, f := locate([]uint64{id})
		if !f[0] {
			missing = append(missing, uint64(i))
			continue
		}
		rows = append(rows, row{rowid.Address(a[0]), uint64(i)})
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.addr, b.addr), cmp.Compare(a.pos, b.pos))
	})
	var tasks []TakeTask
	for i := 0; i < len(rows); {
		f := rows[i].addr.Fragment()
		k := TakeTask{Format: TakeFormat, Fragment: f, Ords: []uint64{}, Offsets: []uint32{}}
		for ; i < len(rows) && rows[i].addr.Fragment() == f && len(k.Ords) < max; i++ {
			k.Ords = append(k.Ords, rows[i].pos)
			k.Offsets = append(k.Offsets, rows[i].addr.Offset())
		}
		tasks = append(tasks, k)
	}
	return tasks, missing
}

// TestPlanTakeMatchesModel: PlanTake's tasks and missing ids equal the
// reference model's, field for field, through the index and without it,
// for random ids with duplicates, deleted and never existing ids, task
// caps below and above a fragment's rows, and the empty take.
func TestPlanTakeMatchesModel(t *testing.T) {
	ctx := context.Background()
	for _, indexed := range []bool{false, true} {
		tb, l := takeFixture(t, indexed)
		r := rand.New(rand.NewPCG(3, 4))
		for _, n := range []int{0, 1, 17, 2000} {
			ids := make([]uint64, n)
			for i := range ids {
				if i > 0 && r.IntN(8) == 0 {
					ids[i] = ids[r.IntN(i)]
				} else {
					ids[i] = uint64(r.IntN(800))
				}
			}
			for _, max := range []int{1, 7, 100, DefaultMaxTaskRows} {
				p, err := l.PlanTake(ctx, tb, ids, TakeOptions{MaxTaskRows: max})
				require.NoError(t, err)
				tasks, missing := modelPlan(t, ids, tb.Locate, max)
				for i := range tasks {
					tasks[i].Version = tb.Version()
				}
				require.Equal(t, tb.Version(), p.Version)
				require.Equal(t, missing, p.Missing, "indexed %v, %d ids, max %d", indexed, n, max)
				require.Equal(t, tasks, p.Tasks, "indexed %v, %d ids, max %d", indexed, n, max)
			}
		}
	}
}
