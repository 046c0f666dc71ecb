package fileio

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
)

func globTree(t *testing.T) (base, root string) {
	t.Helper()
	base = t.TempDir()
	root = filepath.Join(base, "files")
	for _, name := range []string{"files/d/a1.csv", "files/d/a2.csv", "files/d/b.csv", "files/d/sub/a3.csv", "outside/a9.csv"} {
		p := filepath.Join(base, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("k\n1\n"), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(root, "d", "adir.csv"), 0o755))
	return base, root
}

// TestGlobMatches: *, ? and [...] match files (not directories), sorted,
// relative to the root under a root policy and as given otherwise; a
// name without metacharacters is itself.
func TestGlobMatches(t *testing.T) {
	base, root := globTree(t)
	p := Policy{Root: root}
	got, err := p.Glob("d/a*.csv")
	require.NoError(t, err)
	assert.Equal(t, []string{"d/a1.csv", "d/a2.csv"}, got)
	got, err = p.Glob("d/[ab]?.csv")
	require.NoError(t, err)
	assert.Equal(t, []string{"d/a1.csv", "d/a2.csv"}, got)
	got, err = p.Glob("./d/*/a?.csv")
	require.NoError(t, err)
	assert.Equal(t, []string{"d/sub/a3.csv"}, got)
	got, err = p.Glob("d/missing.csv")
	require.NoError(t, err)
	assert.Equal(t, []string{"d/missing.csv"}, got)
	got, err = Unrestricted.Glob(filepath.Join(root, "d", "?.csv"))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(root, "d", "b.csv")}, got)
	_, err = Unrestricted.Glob(filepath.Join(base, "outside", "*.csv"))
	require.NoError(t, err)
}

// TestGlobErrors: no match is ErrNotFound naming the pattern, a malformed
// pattern ErrOption, and under a root every way out is ErrDenied: "..",
// an absolute pattern, a symlinked directory leading out, a matched
// symlink or hard link.
func TestGlobErrors(t *testing.T) {
	base, root := globTree(t)
	p := Policy{Root: root}
	_, err := p.Glob("d/z*.csv")
	require.ErrorIs(t, err, ErrNotFound)
	assert.Contains(t, err.Error(), `"d/z*.csv"`)
	_, err = p.Glob("d/[.csv")
	require.ErrorIs(t, err, ErrOption)
	require.NoError(t, os.Symlink(filepath.Join(base, "outside"), filepath.Join(root, "up")))
	require.NoError(t, os.Mkdir(filepath.Join(root, "links"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(base, "outside", "a9.csv"), filepath.Join(root, "links", "s.csv")))
	require.NoError(t, os.Mkdir(filepath.Join(root, "hard"), 0o755))
	require.NoError(t, os.Link(filepath.Join(base, "outside", "a9.csv"), filepath.Join(root, "hard", "h.csv")))
	for _, pat := range []string{"../outside/*.csv", "d/../../outside/*.csv", filepath.Join(base, "outside", "*.csv"), "up/*.csv", "links/*.csv", "hard/*.csv"} {
		_, err := p.Glob(pat)
		require.ErrorIs(t, err, ErrDenied, pat)
		assert.Equal(t, errkind.PermissionDenied, errkind.Of(err), pat)
	}
	_, err = (Policy{}).Glob("*.csv")
	require.ErrorIs(t, err, ErrDenied)
}
