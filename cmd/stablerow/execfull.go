package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
)

// fullName is the full build's file name (full.go), installed beside
// stablerow (make install).
const fullName = "stablerow-full"

// errNoFull: the command needs the full build and it is not installed.
var errNoFull = errkind.New(errkind.Unavailable, "stablerow: this command needs "+fullName)

// needsFull reports whether the command line asks for what only the full
// build has: serve, or an s3:// location in any argument (a flag's value,
// -d=s3://... included, or inspect's path). An SQL text is no location
// (store.IsRemoteURI wants a scheme at its start), so `-e` is never
// mistaken for one.
func needsFull(args []string) bool {
	if len(args) > 0 && args[0] == "serve" {
		return true
	}
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			if _, v, ok := strings.Cut(a, "="); ok {
				a = v
			}
		}
		if engine.IsRemote(a) {
			return true
		}
	}
	return false
}

// fullPath finds the full build: beside this executable (symlinks
// resolved), else on PATH.
func fullPath() (string, error) {
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), fullName)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath(fullName)
	if err != nil {
		return "", fmt.Errorf("%w, which is neither beside this binary nor on PATH: make install builds both, or go build -tags stablerow_full -o %s ./cmd/stablerow", errNoFull, fullName)
	}
	return p, nil
}

// execFull replaces this process with the full build running args (the
// command line after the program name), same environment and descriptors;
// it returns only on failure.
func execFull(args []string) error {
	if fullBuild {
		return errors.New("stablerow: execFull in the full build") // a bug: it would exec itself
	}
	p, err := fullPath()
	if err != nil {
		return err
	}
	err = syscall.Exec(p, append([]string{p}, args...), os.Environ())
	return fmt.Errorf("%w: exec %s: %w", errNoFull, p, err)
}
