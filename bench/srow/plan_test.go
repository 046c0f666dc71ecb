package srow

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSummarizePlan pins the summary of plans in exec.Explain's format
// (copied from a real run).
func TestSummarizePlan(t *testing.T) {
	take := `01)ProjectExec: expr=[ord@1 as ord, _rowaddr@3 as _rowaddr], metrics=[output_rows=100, output_batches=1, elapsed_compute=571ns]
02)  TakeByKeyExec: key=key0 = t._rowid, index=btree rid(_rowid) built at v2 covering 1 fragments, columns=[_rowaddr], version=4, metrics=[output_rows=100, output_batches=1, elapsed_compute=113.934µs, hits=95, keys_probed=100, misses=5, pages_decoded=0]
03)    ProjectExec: expr=[value@0 as value, ord@1 as ord, u64(rowid@0) as key0], metrics=[output_rows=100, output_batches=1, elapsed_compute=6.653µs]
04)      UnnestExec: list=$1 ordinality=true, metrics=[output_rows=100, output_batches=1, elapsed_compute=17.723µs]
`
	require.Equal(t, "ProjectExec > TakeByKeyExec(btree rid(_rowid) built at v2 covering 1 fragments; hits=95 misses=5 pages_decoded=0) > ProjectExec > UnnestExec",
		SummarizePlan(take))
	remapped := `01)ProjectExec: expr=[ord@1 as ord, _rowaddr@3 as _rowaddr], metrics=[output_rows=3, output_batches=1, elapsed_compute=671ns]
02)  TakeByKeyExec: key=key0 = t._rowid, index=btree rid(_rowid) built at v2 covering 3 fragments, derived coverage 3 fragments, columns=[_rowaddr], version=5, metrics=[output_rows=3, hits=3, misses=0, pages_decoded=1]
03)    ProjectExec: expr=[value@0 as value, ord@1 as ord, u64(value@0) as key0], metrics=[output_rows=3]
04)      UnnestExec: list=$1 ordinality=true, metrics=[output_rows=3]
05)    RowAddrRemapExec: column=_rowaddr, transitions=1, deleted=null, metrics=[output_rows=3, addresses_remapped=3, deleted=0]
06)      IndexProbeExec: btree rid(_rowid) built at v2 covering 3 fragments, derived coverage 3 fragments, metrics=[output_rows=0]
`
	require.Equal(t, "ProjectExec > TakeByKeyExec(btree rid(_rowid) built at v2 covering 3 fragments, derived coverage 3 fragments; hits=3 misses=0 pages_decoded=1) > "+
		"[ProjectExec > UnnestExec; RowAddrRemapExec(addresses_remapped=3 deleted=0) > IndexProbeExec]", SummarizePlan(remapped))
	filter := `01)FilterExec: k@0 IN (65, 87, 43), metrics=[output_rows=10, output_batches=1, elapsed_compute=328.282352ms]
02)  ScanExec: version=4, columns=[k, payload], fragments=all, metrics=[output_rows=1000000, output_batches=245, elapsed_compute=4.89283ms]
`
	require.Equal(t, "FilterExec(k@0 IN (3 values); output_rows=10) > ScanExec(fragments=all; output_rows=1000000)", SummarizePlan(filter))
	require.Equal(t, "something else", SummarizePlan("something else\n"))
}
