//go:build unix && !linux

package fileio

// openBeneathFD opens rel beneath dirfd without following any symlink
// (openWalk: these systems have no openat2).
func openBeneathFD(dirfd int, rel string, flag int, perm uint32) (int, error) {
	return openWalk(dirfd, rel, flag, perm)
}
