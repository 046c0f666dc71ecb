//go:build unix

package fileio

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stablerow/stablerow/errkind"
)

// filesTree makes base/files (the root, with sub/ and in.csv) and
// base/secret/s.csv outside it.
func filesTree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "files")
	outside = filepath.Join(base, "secret")
	for _, d := range []string{filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(outside, "s.csv"), filepath.Join(root, "sub", "in.csv")} {
		if err := os.WriteFile(f, []byte("secret\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func wantDenied(t *testing.T, what string, f *os.File, err error) {
	t.Helper()
	if err == nil {
		f.Close()
		t.Fatalf("%s: allowed, want refused", what)
	}
	if !errors.Is(err, ErrDenied) || !errors.Is(err, errkind.PermissionDenied) {
		t.Fatalf("%s: %v, want ErrDenied", what, err)
	}
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPolicyHardLinks: a hard link inside the root to a file outside it is
// refused for reading and for writing, and the outside file is left as it
// was; a policy that allows hard links reads and writes through it.
func TestPolicyHardLinks(t *testing.T) {
	withOpeners(t, func(t *testing.T) {
		root, outside := filesTree(t)
		secret := filepath.Join(outside, "s.csv")
		if err := os.Link(secret, filepath.Join(root, "ln.csv")); err != nil {
			t.Fatal(err)
		}
		p := Policy{Root: root}
		f, err := p.Open("ln.csv")
		wantDenied(t, "open ln.csv", f, err)
		f, err = p.Create("ln.csv")
		wantDenied(t, "create ln.csv", f, err)
		if got := readString(t, secret); got != "secret\n" {
			t.Fatalf("a refused create changed the outside file: %q", got)
		}

		p.AllowHardLinks = true
		f, err = p.Open("ln.csv")
		if err != nil {
			t.Fatalf("allowed open: %v", err)
		}
		f.Close()
		f, err = p.Create("ln.csv")
		if err != nil {
			t.Fatalf("allowed create: %v", err)
		}
		f.WriteString("new\n")
		f.Close()
		if got := readString(t, secret); got != "new\n" {
			t.Fatalf("allowed create through the link: outside file %q", got)
		}
	})
}

// TestPolicyCreate: Create makes a new file, and truncates an existing
// one of one link (only after it was checked); a directory is a bad name.
func TestPolicyCreate(t *testing.T) {
	withOpeners(t, func(t *testing.T) {
		root, _ := filesTree(t)
		p := Policy{Root: root}
		for _, name := range []string{"sub/new.csv", "sub/in.csv"} {
			f, err := p.Create(name)
			if err != nil {
				t.Fatalf("create %s: %v", name, err)
			}
			f.WriteString("x\n")
			f.Close()
			if got := readString(t, filepath.Join(root, name)); got != "x\n" {
				t.Fatalf("%s after create: %q", name, got)
			}
		}
		for _, op := range []func(string) (*os.File, error){p.Open, p.Create} {
			if _, err := op("sub"); !errors.Is(err, ErrOption) {
				t.Fatalf("directory: %v, want ErrOption", err)
			}
		}
	})
}

// TestPolicyRefusesFIFO: a FIFO in the root is refused at once, not
// opened (a read would block until some writer came).
func TestPolicyRefusesFIFO(t *testing.T) {
	withOpeners(t, func(t *testing.T) {
		root, _ := filesTree(t)
		if err := syscall.Mkfifo(filepath.Join(root, "fifo.csv"), 0o644); err != nil {
			t.Skip("no FIFOs here:", err)
		}
		p := Policy{Root: root}
		f, err := p.Open("fifo.csv")
		wantDenied(t, "open fifo", f, err)
		f, err = p.Create("fifo.csv")
		wantDenied(t, "create fifo", f, err)
	})
}

// TestPolicySymlinkSwappedIn: a directory that passes resolve's checks and
// is then replaced by a symlink, to outside the root or to inside it,
// does not redirect the open: no symlink is followed at open time.
func TestPolicySymlinkSwappedIn(t *testing.T) {
	withOpeners(t, func(t *testing.T) {
		for _, target := range []string{"outside", "inside"} {
			root, outside := filesTree(t)
			dest := outside
			if target == "inside" {
				dest = filepath.Join(root, "other")
				if err := os.Mkdir(dest, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dest, "s.csv"), []byte("secret\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(root, "sub", "s.csv"), []byte("mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sub := filepath.Join(root, "sub")
			afterResolve = func() {
				if err := os.Rename(sub, sub+".old"); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(dest, sub); err != nil {
					t.Fatal(err)
				}
			}
			undo := func() {
				os.Remove(sub)
				os.Rename(sub+".old", sub)
			}
			p := Policy{Root: root}
			f, err := p.Open("sub/s.csv")
			undo()
			wantDenied(t, target+": open through a swapped-in symlink", f, err)
			f, err = p.Create("sub/s.csv")
			undo()
			wantDenied(t, target+": create through a swapped-in symlink", f, err)
			f, err = p.Create("sub/new.csv")
			undo()
			afterResolve = nil
			wantDenied(t, target+": create a new file through a swapped-in symlink", f, err)
			if got := readString(t, filepath.Join(dest, "s.csv")); got != "secret\n" {
				t.Fatalf("%s: the symlink's target changed: %q", target, got)
			}
			if _, err := os.Stat(filepath.Join(dest, "new.csv")); err == nil {
				t.Fatalf("%s: a file was created through the symlink", target)
			}
		}
	})
}

// TestBeneathRefusesSymlinkComponents: the open function itself, given a
// path one of whose components (middle or last) is a symlink, refuses it
// whether the link leads out or stays inside; a plain path opens.
func TestBeneathRefusesSymlinkComponents(t *testing.T) {
	withOpeners(t, func(t *testing.T) {
		root, outside := filesTree(t)
		for name, target := range map[string]string{
			"outdir":    outside,
			"indir":     filepath.Join(root, "sub"),
			"relin":     "sub",
			"out.csv":   filepath.Join(outside, "s.csv"),
			"in.csv":    "sub/in.csv",
			"dangling":  filepath.Join(outside, "nothing.csv"),
			"abs":       "/",
			"parentdir": "..",
		} {
			if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
				t.Fatal(err)
			}
		}
		ok := func(bool, bool, uint64) error { return nil }
		for _, rel := range []string{
			"outdir/s.csv", "indir/in.csv", "relin/in.csv", "out.csv", "in.csv",
			"abs/etc/passwd", "parentdir/secret/s.csv",
		} {
			for _, flag := range []int{os.O_RDONLY, os.O_WRONLY, os.O_WRONLY | os.O_CREATE | os.O_EXCL} {
				f, err := beneath(root, rel, flag, 0o644, ok)
				if err == nil {
					f.Close()
					t.Fatalf("beneath %s (flag %#x): opened, want refused", rel, flag)
				}
				// O_EXCL never follows a final symlink: it exists (Create
				// then opens without O_CREATE, refused as above).
				exist := flag&os.O_EXCL != 0 && errors.Is(err, os.ErrExist)
				if !errors.Is(err, errSymlink) && !errors.Is(err, errEscape) && !exist {
					t.Fatalf("beneath %s (flag %#x): %v, want a symlink refusal", rel, flag, err)
				}
			}
		}
		f, err := beneath(root, "dangling", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644, ok)
		if err == nil {
			f.Close()
			t.Fatal("created through a dangling symlink")
		}
		if _, err := os.Stat(filepath.Join(outside, "nothing.csv")); err == nil {
			t.Fatal("a file was created outside through a dangling symlink")
		}
		f, err = beneath(root, "sub/in.csv", os.O_RDONLY, 0, ok)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	})
}
