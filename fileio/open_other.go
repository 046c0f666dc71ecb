//go:build !unix

package fileio

import "os"

// beneath opens rel inside root through os.Root, which refuses a step
// out of root at the time of the open. These systems give no portable
// link count, so a policy that refuses hard links refuses every file here
// unless Policy.AllowHardLinks.
func beneath(root, rel string, flag int, perm uint32, check func(regular, dir bool, nlink uint64) error) (*os.File, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(rel, flag, os.FileMode(perm))
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = check(st.Mode().IsRegular(), st.IsDir(), 0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
