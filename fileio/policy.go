package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Policy says which paths SQL may read and write. The zero Policy refuses
// every path.
type Policy struct {
	// Root, when set, is the one directory paths resolve in: a path is
	// relative to it, and neither "..", an absolute path nor a symlink may
	// lead out of it. Symlinks inside it are not followed at all, and a
	// file must be a regular file with one link (see AllowHardLinks).
	Root string
	// Any allows every path the process can open, relative to the working
	// directory (the local CLI, the embedded library).
	Any bool
	// AllowHardLinks, under Root, opens a file that has more than one hard
	// link. Refused by default: a link inside Root to a file outside it
	// (made by anyone who can write in Root) would let COPY read or
	// overwrite that file. The server's -files-allow-hardlinks.
	AllowHardLinks bool
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
	if afterResolve != nil {
		afterResolve()
	}
	// The checks in resolve give clear errors; the open itself is what
	// holds: beneath resolves rel relative to the root directory's
	// descriptor without following a symlink or leaving it (openat2, or
	// a walk with O_NOFOLLOW), and the file's type and link count are
	// checked on the opened descriptor, so nothing swapped in meanwhile
	// can redirect it.
	if flag&os.O_CREATE == 0 {
		f, err := beneath(root, rel, flag, 0, p.check(name))
		return f, p.classifyBeneath(name, err)
	}
	return p.create(name, rel, root, flag)
}

// create opens rel for writing: a new file with O_EXCL, or else the
// existing one without O_TRUNC, truncated only once its descriptor
// passed the checks (O_TRUNC would empty a file hard-linked from outside
// before its link count could be seen).
func (p Policy) create(name, rel, root string, flag int) (*os.File, error) {
	for tries := 0; ; tries++ {
		f, err := beneath(root, rel, (flag|os.O_EXCL)&^os.O_TRUNC, 0o644, p.check(name))
		if !errors.Is(err, fs.ErrExist) {
			return f, p.classifyBeneath(name, err)
		}
		f, err = beneath(root, rel, flag&^(os.O_CREATE|os.O_TRUNC), 0, p.check(name))
		if errors.Is(err, fs.ErrNotExist) && tries < 3 {
			continue // removed since: create it after all
		}
		if err != nil {
			return nil, p.classifyBeneath(name, err)
		}
		if flag&os.O_TRUNC != 0 {
			if err := f.Truncate(0); err != nil {
				f.Close()
				return nil, fmt.Errorf("%w: %s: %w", ErrDenied, name, err)
			}
		}
		return f, nil
	}
}

// check is what an opened file must be: a regular file (a directory is a
// bad name, a FIFO or device is refused) with one link, unless the policy
// allows hard links. A second link may be anywhere on the file system:
// reading or writing through the one inside Root would reach a file
// outside it. nlink 0 is a system that does not tell (not Unix).
func (p Policy) check(name string) func(regular, dir bool, nlink uint64) error {
	return func(regular, dir bool, nlink uint64) error {
		switch {
		case dir:
			return fmt.Errorf("%w: %s is a directory", ErrOption, name)
		case !regular:
			return fmt.Errorf("%w: %s is not a regular file", ErrDenied, name)
		case p.AllowHardLinks:
			return nil
		case nlink == 0:
			return fmt.Errorf("%w: %s: this system does not report link counts, so hard links cannot be refused (allow them with -files-allow-hardlinks)", ErrDenied, name)
		case nlink > 1:
			return fmt.Errorf("%w: %s has %d hard links (one may lead outside the files directory; the server allows them with -files-allow-hardlinks)", ErrDenied, name, nlink)
		}
		return nil
	}
}

// classifyBeneath types an error of beneath: a policy error as it is,
// a symlink or an escape as ErrDenied, a missing file as ErrNotFound.
func (p Policy) classifyBeneath(name string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrDenied), errors.Is(err, ErrOption):
		return err
	case errors.Is(err, errSymlink):
		return fmt.Errorf("%w: %q: a symlink on the path (symlinks are not followed inside the files directory)", ErrDenied, name)
	case errors.Is(err, errEscape):
		return fmt.Errorf("%w: %q leads outside the files directory", ErrDenied, name)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	case errors.Is(err, syscall.EISDIR):
		return fmt.Errorf("%w: %s is a directory", ErrOption, name)
	}
	return fmt.Errorf("%w: %s: %w", ErrDenied, name, err)
}

// errSymlink and errEscape are beneath's refusals, typed by
// classifyBeneath.
var (
	errSymlink = errors.New("symlink on the path")
	errEscape  = errors.New("path leads outside the directory")
)

// afterResolve, when set (tests), runs between resolve's checks and the
// open: where a test swaps a directory for a symlink.
var afterResolve func()

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
