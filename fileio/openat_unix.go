//go:build unix

package fileio

import (
	"errors"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// openRoot opens the files directory itself (its real path: symlinks in
// Root are the operator's and were resolved by Policy.resolve).
func openRoot(root string) (int, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: root, Err: err}
	}
	return fd, nil
}

// openWalk opens rel (clean, relative, without "..") under the directory
// dirfd one component at a time, each with O_NOFOLLOW: no symlink is
// followed and no component can be "..", so every step stays beneath
// dirfd whatever is renamed or swapped meanwhile. It is the fallback of
// openat2's RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS where that is missing
// (kernels before 5.6, other Unixes).
func openWalk(dirfd int, rel string, flag int, perm uint32) (int, error) {
	parts := strings.Split(rel, "/")
	dir := dirfd
	defer func() {
		if dir != dirfd {
			unix.Close(dir)
		}
	}()
	for _, p := range parts[:len(parts)-1] {
		if p == "" || p == "." {
			continue
		}
		fd, err := openatRetry(dir, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, walkError(dir, p, err)
		}
		if dir != dirfd {
			unix.Close(dir)
		}
		dir = fd
	}
	last := parts[len(parts)-1]
	if last == "" {
		last = "."
	}
	fd, err := openatRetry(dir, last, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	if err != nil {
		return -1, walkError(dir, last, err)
	}
	return fd, nil
}

func openatRetry(dir int, name string, flag int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(dir, name, flag, perm)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// walkError turns O_NOFOLLOW's refusal of a symlink (ELOOP on Linux,
// EMLINK on FreeBSD, ENOTDIR where O_DIRECTORY is checked first) into
// errSymlink.
func walkError(dir int, name string, err error) error {
	switch err {
	case unix.ELOOP, unix.EMLINK, unix.ENOTDIR:
		var st unix.Stat_t
		if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return errSymlink
		}
	}
	return err
}

// newFile makes an *os.File of a descriptor opened with O_NONBLOCK (so a
// FIFO planted in the files directory cannot hang the open), after the
// caller checked it is a regular file: blocking again, as os.OpenFile's
// files are.
func newFile(fd int, name string) (*os.File, error) {
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// fdInfo is what the policy checks on an opened descriptor (fstat, not the
// path: the path may have changed since).
func fdInfo(fd int) (regular, dir bool, nlink uint64, err error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, false, 0, err
	}
	mode := st.Mode & unix.S_IFMT
	return mode == unix.S_IFREG, mode == unix.S_IFDIR, uint64(st.Nlink), nil
}

// openFlags maps os.OpenFile's flags onto the system's, adding O_NONBLOCK
// (see newFile) and O_NOCTTY.
func openFlags(flag int) int {
	return flag | unix.O_NONBLOCK | unix.O_NOCTTY
}

// beneath opens rel beneath root and returns the descriptor checked by
// check; the platform's openBeneathFD does the resolution.
func beneath(root, rel string, flag int, perm uint32, check func(regular, dir bool, nlink uint64) error) (*os.File, error) {
	rootfd, err := openRoot(root)
	if err != nil {
		return nil, err
	}
	defer unix.Close(rootfd)
	fd, err := openBeneathFD(rootfd, rel, openFlags(flag), perm)
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			err = &os.PathError{Op: "open", Path: rel, Err: errno}
		}
		return nil, err
	}
	regular, dir, nlink, err := fdInfo(fd)
	if err == nil {
		err = check(regular, dir, nlink)
	}
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	return newFile(fd, rel)
}
