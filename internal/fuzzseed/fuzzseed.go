package fuzzseed

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Env is the variable that turns regeneration on.
const Env = "STABLEROW_WRITE_CORPUS"

// Skip skips the test unless regeneration was asked for.
func Skip(t testing.TB) {
	t.Helper()
	if os.Getenv(Env) == "" {
		t.Skip("set " + Env + "=1 to regenerate testdata/fuzz")
	}
}

// Write replaces testdata/fuzz/<target>/seedNN with one file per seed, each
// holding a single []byte argument.
func Write(t testing.TB, target string, seeds [][]byte) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, b := range seeds {
		data := fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
