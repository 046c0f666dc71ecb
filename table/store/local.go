package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// tempPrefix marks in-flight writes. A crash can leave such files behind;
// List never reports them and Cleanup-style sweeps may delete them.
const tempPrefix = ".tmp-"

// Local is a Store over a directory of the local file system, the embedded
// default. Writes go to a temporary file that is fsynced and then renamed
// (Put) or hard-linked (PutIfAbsent) into place, so a crash never leaves a
// torn object under its final name.
type Local struct {
	root string
}

var _ Store = (*Local)(nil)

// NewLocal returns a store rooted at dir, creating the directory if needed.
func NewLocal(dir string) (*Local, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return &Local{root: abs}, nil
}

// Root returns the directory the store is rooted at.
func (l *Local) Root() string { return l.root }

func (l *Local) full(p string) (string, error) {
	c, err := cleanPath(p)
	if err != nil {
		return "", err
	}
	return filepath.Join(l.root, filepath.FromSlash(c)), nil
}

func mapErr(p string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %q", ErrNotFound, p)
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: %q", ErrExists, p)
	}
	return fmt.Errorf("store: %q: %w", p, err)
}

// Get implements Store.
func (l *Local) Get(ctx context.Context, p string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := l.full(p)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return nil, mapErr(p, err)
	}
	return b, nil
}

// GetRange implements Store.
func (l *Local) GetRange(ctx context.Context, p string, off, n int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := l.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if err := checkRange(p, r.Size(), off, n); err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, mapErr(p, err)
	}
	return buf, nil
}

// Size implements Store.
func (l *Local) Size(ctx context.Context, p string) (int64, error) {
	f, err := l.full(p)
	if err != nil {
		return 0, err
	}
	st, err := os.Stat(f)
	if err != nil {
		return 0, mapErr(p, err)
	}
	return st.Size(), nil
}

// writeTemp writes data to a fresh temporary file next to final and fsyncs
// it. The file comes back open and flock(2)ed: the caller closes it after
// the rename or link, and until then TempInUse tells a sweep that the
// write is in progress (a killed writer's lock dies with it).
func (l *Local) writeTemp(final string, data []byte) (string, *os.File, error) {
	dir := filepath.Dir(final)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, tempPrefix+hex.EncodeToString(rnd[:])+"-"+filepath.Base(final))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", nil, err
	}
	fail := func(err error) (string, *os.File, error) {
		f.Close()
		os.Remove(tmp)
		return "", nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	return tmp, f, nil
}

// TempInUse reports whether the temporary file at full (a file system
// path) belongs to a put still in progress in some process: that put holds
// its flock. A sweep must leave such a file alone.
func TempInUse(full string) bool {
	f, err := os.Open(full)
	if err != nil {
		return false // gone: renamed into place or removed
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false
	}
	return errors.Is(err, syscall.EWOULDBLOCK)
}

// syncDir makes a rename or link in dir durable.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Put implements Store.
func (l *Local) Put(ctx context.Context, p string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	final, err := l.full(p)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		tmp, f, err := l.writeTemp(final, data)
		if err != nil {
			return mapErr(p, err)
		}
		err = os.Rename(tmp, final)
		vanished := err != nil && tempVanished(tmp, err)
		if err != nil {
			os.Remove(tmp)
		}
		f.Close()
		if err != nil {
			if attempt < tempRetries && vanished {
				continue
			}
			return mapErr(p, err)
		}
		syncDir(filepath.Dir(final))
		return nil
	}
}

// tempRetries bounds the attempts of a put whose temporary file vanished.
// A sweep takes a put's file only in the instant between its creation and
// its lock (TempInUse cannot see that write yet), but a writer descheduled
// there under load lost it three times in a row against a VACUUM loop
// with no grace period (TestWritersAgainstVacuumLoop/local, 3 of 40 runs
// at load 10-12); each attempt is a fresh name, so ten make that
// vanishingly rare. (Keeping young empty temporary files from the sweep
// instead would keep a killed writer's file from the VACUUM right after
// the crash, which TestCrash requires to remove it.)
const tempRetries = 10

// tempVanished reports whether a rename or link of tmp failed because tmp
// itself is gone: a sweep of stray temporary files (VACUUM with no grace
// period) took it. The put is then simply written again.
func tempVanished(tmp string, err error) bool {
	if !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if _, err := os.Lstat(filepath.Dir(tmp)); err != nil {
		return false // the directory is gone: not ours to recreate
	}
	_, err = os.Lstat(tmp)
	return errors.Is(err, fs.ErrNotExist)
}

// PutIfAbsent implements Store. link(2) fails when the target exists, which
// makes the create-if-absent step atomic even across processes.
func (l *Local) PutIfAbsent(ctx context.Context, p string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	final, err := l.full(p)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(final); err == nil {
		return fmt.Errorf("%w: %q", ErrExists, p)
	}
	for attempt := 1; ; attempt++ {
		tmp, f, err := l.writeTemp(final, data)
		if err != nil {
			return mapErr(p, err)
		}
		err = os.Link(tmp, final)
		vanished := err != nil && tempVanished(tmp, err)
		os.Remove(tmp)
		f.Close()
		if err != nil {
			if attempt < tempRetries && vanished {
				continue
			}
			return mapErr(p, err)
		}
		syncDir(filepath.Dir(final))
		return nil
	}
}

// List implements Store.
func (l *Local) List(ctx context.Context, prefix string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Walk only the deepest directory the prefix names.
	base := l.root
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		c, err := cleanPath(prefix[:i+1])
		if err != nil {
			return nil, err
		}
		base = filepath.Join(l.root, filepath.FromSlash(c))
	}
	var out []string
	err := filepath.WalkDir(base, func(f string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), tempPrefix) {
			return nil
		}
		rel, err := filepath.Rel(l.root, f)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, prefix) {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: list %q: %w", prefix, err)
	}
	slices.Sort(out)
	return out, nil
}

// Delete implements Store.
func (l *Local) Delete(ctx context.Context, p string) error {
	f, err := l.full(p)
	if err != nil {
		return err
	}
	if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return mapErr(p, err)
	}
	return nil
}

// Open implements Store.
func (l *Local) Open(ctx context.Context, p string) (Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	full, err := l.full(p)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(full)
	if err != nil {
		return nil, mapErr(p, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, mapErr(p, err)
	}
	return &fileReader{f: f, size: st.Size()}, nil
}

type fileReader struct {
	f    *os.File
	size int64
}

func (r *fileReader) ReadAt(p []byte, off int64) (int, error) { return r.f.ReadAt(p, off) }
func (r *fileReader) Size() int64                             { return r.size }
func (r *fileReader) Close() error                            { return r.f.Close() }
