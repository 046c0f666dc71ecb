package srow

import (
	"strings"
	"testing"

	"github.com/stablerow/stablerow/internal/fuzzseed"
)

func planSeeds() [][]byte {
	return [][]byte{
		[]byte("01)ProjectExec: expr=[ord@1 as ord], metrics=[output_rows=100, output_batches=1]\n02)  TakeByKeyExec: key=key0 = t._rowid, index=btree rid(_rowid) built at v2 covering 1 fragments, columns=[_rowaddr], metrics=[hits=95, misses=5, pages_decoded=0]\n"),
		[]byte("01)FilterExec: k@0 IN (1, 2, 3), metrics=[output_rows=10]\n02)  ScanExec: version=4, fragments=all, metrics=[output_rows=1000000]\n"),
		[]byte("01)A: x\n02)  B: metrics=[hits=1]\n03)    C\n04)  D: y\n05)      E\n06)F\n"),
		[]byte(""),
		[]byte("01)"),
		[]byte("01)X: metrics=[=, a=, =b]"),
		[]byte("not a plan\n\n\n"),
	}
}

// TestCorpus rewrites testdata/fuzz/FuzzSummarizePlan on request.
func TestCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzSummarizePlan", planSeeds())
}

// FuzzSummarizePlan: any text summarizes without panicking, to one entry
// per non-blank line.
func FuzzSummarizePlan(f *testing.F) {
	for _, s := range planSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text := string(data)
		got := SummarizePlan(text)
		lines := 0
		for l := range strings.Lines(text) {
			if strings.TrimSpace(l) != "" {
				lines++
			}
		}
		if lines == 0 && got != "" {
			t.Fatalf("summary %q of a blank plan", got)
		}
		if lines > 0 && got == "" {
			t.Fatalf("empty summary of %d lines", lines)
		}
	})
}
