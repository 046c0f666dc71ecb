package table_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/internal/vacuumstress"
	"github.com/stablerow/stablerow/table"
)

// TestWritersAgainstVacuumLoop: appends run while VACUUM with no grace
// period loops; every append either fails or all its rows read back
// (issue 26). The default is a few seconds' worth; a long run sets
// STABLEROW_VACUUM_STRESS, e.g.
//
//	STABLEROW_VACUUM_STRESS=rounds=20,writers=3,rows=1000000-20000000 \
//	  go test -count=1 -timeout 0 -run TestWritersAgainstVacuumLoop ./table/
func TestWritersAgainstVacuumLoop(t *testing.T) {
	cfg, err := vacuumstress.FromEnv(vacuumstress.Config{Rounds: 3, Writers: 2, MinRows: 100_000, MaxRows: 300_000, Seed: 1})
	require.NoError(t, err)
	if !testing.Short() {
		cfg.MaxRows = max(cfg.MaxRows, 1_000_000)
	}
	for kind, newStore := range intentStores(t) {
		t.Run(kind, func(t *testing.T) {
			mem := exectest.Mem(t)
			// Small fragments: each append stores many files, each one a
			// chance for VACUUM to strike between store and commit.
			res, err := vacuumstress.Run(context.Background(), newStore(), mem, cfg,
				table.Options{MaxRowsPerFragment: 32_768}, t.Logf)
			require.NoError(t, err)
			t.Logf("%d appends (%d failed: %v), %d rows written and read back; %d VACUUMs removed %d files",
				res.Appends, res.Failed, res.FailureKinds, res.RowsWritten, res.Vacuums, res.FilesRemoved)
			require.Greater(t, res.Vacuums, cfg.Rounds, "VACUUM ran during the writes")
			require.Equal(t, cfg.Rounds*cfg.Writers, res.Appends)
			// Within one process nothing should even fail: the intents keep
			// every file (a failure would be a lost intent or a missing file).
			require.Zero(t, res.Failed)
		})
	}
}
