package exec_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// FuzzTakeByKey drives the take over takeFixture's table (indexed
// fragments, an append, deletes, an update moving rows out of coverage)
// with arbitrary id lists, probe batches and batch sizes, with and without
// the index, and checks every answer against the table's own resolution
// (expectTake). Input: byte 0 = probe batch, byte 1 = batch size, then
// 2 bytes per id (0xFFFF = NULL; ids beyond the table miss).
func FuzzTakeByKey(f *testing.F) {
	f.Add([]byte{0, 0, 8, 0, 250, 0, 64, 1, 5, 0})
	f.Add([]byte{3, 1, 0xFF, 0xFF, 8, 0, 8, 0, 0x5E, 1, 0xE8, 3})
	f.Add([]byte{1, 7, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0})
	tb, ix := takeFixture(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 2+2*2048 {
			return
		}
		probe, batch := int(data[0]%16), int(data[1]%16)+1
		var ids []*uint64
		for i := 2; i+1 < len(data); i += 2 {
			v := binary.LittleEndian.Uint16(data[i:])
			if v == 0xFFFF {
				ids = append(ids, nil)
				continue
			}
			id := uint64(v % 1024)
			ids = append(ids, &id)
		}
		if len(ids) == 0 {
			return
		}
		want := expectTake(t, tb, ids)
		for _, index := range []exec.KeyIndex{ix.at(tb), nil} {
			mem := exectest.Mem(t)
			un, err := exec.NewUnnestExec(ids)
			require.NoError(t, err)
			n, err := exec.NewTakeByKeyExec(un, 0, tb, "_rowid", index, []string{"_rowaddr", "k", "name"}, exec.TakeByKeyOptions{ProbeBatch: probe})
			require.NoError(t, err)
			out, err := collect(n, &exec.TaskContext{Mem: mem, BatchSize: batch})
			require.NoError(t, err)
			got, err := exectest.Rows(out...)
			require.NoError(t, err)
			for _, b := range out {
				b.Release()
			}
			require.Equal(t, want, got)
		}
	})
}
