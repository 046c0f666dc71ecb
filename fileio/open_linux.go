package fileio

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2 proved missing (ENOSYS: before Linux
// 5.6, or a seccomp filter that says so): from then on
// every open walks the path (openWalk). Tests set it to run the fallback.
var noOpenat2 atomic.Bool

// openBeneathFD opens rel beneath dirfd with openat2: RESOLVE_BENEATH
// refuses any resolution that leaves dirfd ("..", an absolute symlink)
// and RESOLVE_NO_SYMLINKS any symlink at all, in the kernel's one lookup,
// so nothing swapped in between a check and the open can redirect it.
func openBeneathFD(dirfd int, rel string, flag int, perm uint32) (int, error) {
	if !noOpenat2.Load() {
		how := &unix.OpenHow{
			Flags:   uint64(flag | unix.O_NOFOLLOW | unix.O_CLOEXEC),
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		}
		if flag&unix.O_CREAT != 0 {
			how.Mode = uint64(perm)
		}
		for tries := 0; ; tries++ {
			fd, err := unix.Openat2(dirfd, rel, how)
			switch {
			case err == nil:
				return fd, nil
			case err == unix.EINTR || err == unix.EAGAIN && tries < 8:
				// EAGAIN: the kernel saw a concurrent rename it could not
				// rule out as an escape; the lookup may be retried.
				continue
			case err == unix.ENOSYS:
				noOpenat2.Store(true)
				return openWalk(dirfd, rel, flag, perm)
			case err == unix.EPERM:
				// A seccomp filter's answer, or a real EPERM (an immutable
				// file opened for writing): the walk tells them apart.
				return openWalk(dirfd, rel, flag, perm)
			case err == unix.ELOOP:
				// With RESOLVE_NO_SYMLINKS: a symlink on the path.
				return -1, errSymlink
			case err == unix.EXDEV:
				return -1, errEscape
			}
			return -1, err
		}
	}
	return openWalk(dirfd, rel, flag, perm)
}
