package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
)

// TestDemoPlanHonesty runs the demo on a small table and audits every plan
// it prints: no node reports rows it did not emit as batches, and the
// take's children (index probe, remap after the recluster, fallback for
// the appended and updated rows) each emit their own batches.
func TestDemoPlanHonesty(t *testing.T) {
	out := captureStdout(t, func() error {
		return runDemo(context.Background(), []string{"-d", t.TempDir(), "-rows", "20000", "-ids", "2000"})
	})
	audit := exectest.NewPlanAudit()
	audit.Add("demo", out)
	for _, p := range audit.Problems {
		t.Error(p)
	}
	for _, name := range audit.Unexecuted() {
		t.Errorf("%s appears in the demo's plans but never emits a batch", name)
	}
	for _, name := range []string{"TakeByKeyExec", "IndexProbeExec", "RowAddrRemapExec", "UnindexedFallbackScan"} {
		require.Positive(t, audit.Executed[name], "%s emits no batch in the demo", name)
	}
}

func captureStdout(t *testing.T, fn func() error) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	old := os.Stdout
	os.Stdout = w
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(&buf, r)
		close(done)
	}()
	ferr := fn()
	os.Stdout = old
	w.Close()
	<-done
	r.Close()
	require.NoError(t, ferr, "%s", buf.String())
	return buf.String()
}
