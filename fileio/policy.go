package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Policy says which paths SQL may read and write. The zero Policy refuses
// every path.
type Policy struct {
	// Root, when set, is the one directory paths resolve in: a path is
	// relative to it, and neither "..", an absolute path nor a symlink may
	// lead out of it.
	Root string
	// Any allows every path the process can open, relative to the working
	// directory (the local CLI, the embedded library).
	Any bool
}

// Unrestricted is the policy of the local CLI and the library.
var Unrestricted = Policy{Any: true}

func (p Policy) String() string {
	switch {
	case p.Any:
		return "unrestricted"
	case p.Root != "":
		return "inside " + p.Root
	}
	return "no file access"
}

// Open opens name for reading under the policy.
func (p Policy) Open(name string) (*os.File, error) {
	return p.open(name, os.O_RDONLY)
}

// Create creates (or truncates) name for writing under the policy. The
// file's parent directory must exist.
func (p Policy) Create(name string) (*os.File, error) {
	return p.open(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
}

// Remove removes name under the policy (a failed COPY TO's partial file).
func (p Policy) Remove(name string) error {
	if p.Any {
		return os.Remove(name)
	}
	rel, root, err := p.resolve(name)
	if err != nil {
		return err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDenied, err)
	}
	defer r.Close()
	return r.Remove(rel)
}

func (p Policy) open(name string, flag int) (*os.File, error) {
	if p.Any {
		if name == "" {
			return nil, fmt.Errorf("%w: empty file name", ErrOption)
		}
		f, err := os.OpenFile(name, flag, 0o644)
		return f, classify(name, err)
	}
	rel, root, err := p.resolve(name)
	if err != nil {
		return nil, err
	}
	// os.Root opens relative to the root directory's descriptor and refuses
	// any step (symlink or "..") that leaves it, at the time of the open:
	// the checks in resolve give clear errors, this one closes the race of a
	// path swapped for a symlink between the check and the open.
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("%w: files directory %s: %w", ErrDenied, p.Root, err)
	}
	defer r.Close()
	f, err := r.OpenFile(rel, flag, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrDenied, name, err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is a directory", ErrOption, name)
	}
	return f, nil
}

// resolve checks name against the root and returns it relative to the
// root's real path (symlinks in Root itself are the operator's choice and
// are resolved first).
func (p Policy) resolve(name string) (rel, root string, err error) {
	if p.Root == "" {
		return "", "", fmt.Errorf("%w: %q: this server allows no file access (start it with -files DIR)", ErrDenied, name)
	}
	if name == "" {
		return "", "", fmt.Errorf("%w: empty file name", ErrOption)
	}
	if strings.IndexByte(name, 0) >= 0 {
		return "", "", fmt.Errorf("%w: NUL in file name", ErrOption)
	}
	if filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.VolumeName(name) != "" {
		return "", "", fmt.Errorf("%w: %q: absolute path; name a file relative to the files directory", ErrDenied, name)
	}
	for _, el := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
		if el == ".." {
			return "", "", fmt.Errorf("%w: %q: \"..\" is not allowed in a file path", ErrDenied, name)
		}
	}
	root, err = filepath.Abs(p.Root)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return "", "", fmt.Errorf("%w: files directory %s: %w", ErrDenied, p.Root, err)
	}
	rel = filepath.Clean(name)
	// Resolve the longest existing prefix and check it stays inside: a
	// symlink out (or a loop) is refused with the path it came from.
	full := filepath.Join(root, rel)
	for prefix := full; ; prefix = filepath.Dir(prefix) {
		if _, err := os.Lstat(prefix); err != nil {
			if prefix == root {
				break
			}
			continue
		}
		real, err := filepath.EvalSymlinks(prefix)
		if err != nil {
			return "", "", fmt.Errorf("%w: %q: %w", ErrDenied, name, err)
		}
		if !inside(root, real) {
			return "", "", fmt.Errorf("%w: %q leads outside the files directory", ErrDenied, name)
		}
		break
	}
	return rel, root, nil
}

func inside(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

func classify(name string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%w: %w", ErrDenied, err)
	}
	return fmt.Errorf("%w: %w", ErrOption, err)
}
