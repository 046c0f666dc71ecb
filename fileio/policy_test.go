package fileio

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stablerow/stablerow/errkind"
)

// TestPolicyRefusesEveryEscape tries each way out of a root directory.
func TestPolicyRefusesEveryEscape(t *testing.T) { withOpeners(t, testPolicyRefusesEveryEscape) }

func testPolicyRefusesEveryEscape(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "files")
	outside := filepath.Join(base, "secret")
	for _, d := range []string{root, outside, filepath.Join(root, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "s.csv"))
	write(filepath.Join(root, "ok.csv"))
	write(filepath.Join(root, "sub", "in.csv"))
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(outside, "s.csv"), "out.csv") // symlink to a file outside
	link(outside, "outdir")                          // symlink to a directory outside
	link("../secret/s.csv", "relout.csv")            // relative symlink outside
	link("loop2", "loop1")                           // a loop
	link("loop1", "loop2")                           //
	link("sub/in.csv", "in.csv")                     // a relative symlink that stays inside: not followed either

	p := Policy{Root: root}
	for _, name := range []string{
		"../secret/s.csv", "sub/../../secret/s.csv", "..", filepath.Join(outside, "s.csv"), "/etc/passwd",
		"out.csv", "outdir/s.csv", "relout.csv", "loop1", "loop1/x.csv", "outdir/new.csv", "in.csv",
	} {
		for _, op := range []struct {
			name string
			f    func(string) (*os.File, error)
		}{{"open", p.Open}, {"create", p.Create}} {
			f, err := op.f(name)
			if err == nil {
				f.Close()
				t.Errorf("%s %q: allowed, want refused", op.name, name)
				continue
			}
			if !errors.Is(err, ErrDenied) || !errors.Is(err, errkind.PermissionDenied) {
				t.Errorf("%s %q: %v, want ErrDenied", op.name, name, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "new.csv")); err == nil {
		t.Fatal("a refused create wrote outside the root")
	}
	for _, name := range []string{"ok.csv", "sub/in.csv", "./ok.csv", "sub/./in.csv"} {
		f, err := p.Open(name)
		if err != nil {
			t.Errorf("open %q: %v", name, err)
			continue
		}
		f.Close()
	}
	f, err := p.Create("sub/new.csv")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := p.Open("missing.csv"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing file: %v", err)
	}
	// The zero policy refuses everything, even inside the working directory.
	if _, err := (Policy{}).Open("ok.csv"); !errors.Is(err, ErrDenied) {
		t.Fatalf("zero policy: %v", err)
	}
}
