package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// MaxGlobFiles bounds the files one glob may name: each is opened at plan
// time, and a pattern over a huge directory should fail clearly rather
// than plan for minutes.
const MaxGlobFiles = 10000

// IsGlob reports whether name is a pattern (holds *, ? or [) rather than
// one file's name. read_parquet and read_csv take either, as DuckDB's do.
func IsGlob(name string) bool { return strings.ContainsAny(name, "*?[") }

// Glob returns the files pattern matches under the policy, sorted by name
// (path.Match's syntax: *, ?, [...], never crossing a '/'). A name that is
// not a pattern is returned as it is (its open reports a missing file).
// Under a Root the pattern gets the checks a name gets (no "..", not
// absolute) and is matched inside the root only; every file matched must
// then open under the policy (no symlink on its path, one hard link), so
// a glob reaches exactly the files the names it matches would. A pattern
// matching no file is ErrNotFound naming it; a malformed one ErrOption.
// Directories matched are skipped: a glob names files.
func (p Policy) Glob(pattern string) ([]string, error) {
	if !IsGlob(pattern) {
		return []string{pattern}, nil
	}
	var matches []string
	var err error
	switch {
	case p.Any:
		matches, err = filepath.Glob(pattern)
		if err == nil {
			matches = skipDirs(matches, os.Lstat)
		}
	default:
		rel, root, rerr := p.resolve(pattern)
		if rerr != nil {
			return nil, rerr
		}
		// fs.Glob over the root's directory matches inside it only and
		// never reads the root's own name as a pattern.
		dir := os.DirFS(root)
		matches, err = fs.Glob(dir, path.Clean(filepath.ToSlash(rel)))
		if err == nil {
			matches = skipDirs(matches, func(name string) (fs.FileInfo, error) { return fs.Stat(dir, name) })
			for i, m := range matches {
				matches[i] = filepath.FromSlash(m)
			}
		}
	}
	if errors.Is(err, filepath.ErrBadPattern) || errors.Is(err, path.ErrBadPattern) {
		return nil, fmt.Errorf("%w: bad file pattern %q", ErrOption, pattern)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrDenied, pattern, err)
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("%w: no file matches %q", ErrNotFound, pattern)
	}
	if len(matches) > MaxGlobFiles {
		return nil, fmt.Errorf("%w: %q matches %d files (at most %d)", ErrOption, pattern, len(matches), MaxGlobFiles)
	}
	if !p.Any {
		for _, m := range matches {
			f, err := p.Open(m)
			if err != nil {
				return nil, fmt.Errorf("glob %q: %w", pattern, err)
			}
			f.Close()
		}
	}
	return matches, nil
}

// skipDirs drops the directories from names (a name stat cannot read is
// kept: its open reports why).
func skipDirs(names []string, stat func(string) (fs.FileInfo, error)) []string {
	out := names[:0]
	for _, n := range names {
		if fi, err := stat(n); err == nil && fi.IsDir() {
			continue
		}
		out = append(out, n)
	}
	return out
}
