package s3test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/internal/vacuumstress"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store/s3store"
)

// TestWritersAgainstVacuumOnS3 is issue 26's stress on S3: appends run
// while VACUUM with no grace period loops against the same prefix (an S3
// store cannot tell a file's age, so grace 0 is what removes orphans
// there); every append either fails or all its rows read back. Against
// Versity Gateway under scripts/versitygw-test.sh, else gofakes3. Sizes as
// in package table's TestWritersAgainstVacuumLoop (STABLEROW_VACUUM_STRESS
// for a long run).
func TestWritersAgainstVacuumOnS3(t *testing.T) {
	cfg, err := vacuumstress.FromEnv(vacuumstress.Config{Rounds: 2, Writers: 2, MinRows: 100_000, MaxRows: 200_000, Seed: 3})
	require.NoError(t, err)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := target(t)
	st := f.open(t, f.uri("db/w"), s3store.Options{})
	res, err := vacuumstress.Run(context.Background(), st, mem, cfg, table.Options{MaxRowsPerFragment: 32_768}, t.Logf)
	require.NoError(t, err)
	t.Logf("%d appends (%d failed: %v), %d rows written and read back; %d VACUUMs removed %d files",
		res.Appends, res.Failed, res.FailureKinds, res.RowsWritten, res.Vacuums, res.FilesRemoved)
	require.Equal(t, cfg.Rounds*cfg.Writers, res.Appends)
	require.Zero(t, res.Failed, "within one process the intents keep every file")
	require.Greater(t, res.Vacuums, cfg.Rounds)
}
