package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fullOnly are the packages (import path prefixes) the query-path build
// must not link (lean.go): the Flight SQL server, the S3 store with the
// AWS SDK, the line editor.
var fullOnly = []string{
	"github.com/stablerow/stablerow/server",
	"github.com/stablerow/stablerow/engine/s3db",
	"github.com/stablerow/stablerow/table/store/s3store",
	"github.com/aws/",
	"github.com/peterh/liner",
}

// deps is `go list -deps` of this package under the build flags given.
func deps(t *testing.T, flags ...string) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", append(append([]string{"list", "-deps"}, flags...), ".")...).Output()
	if err != nil {
		t.Fatalf("go list -deps %v: %v", flags, err)
	}
	m := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		m[p] = true
	}
	return m
}

// linked returns the packages of ds under prefix.
func linked(ds map[string]bool, prefix string) []string {
	var out []string
	for p := range ds {
		if p == prefix || strings.HasPrefix(p, prefix) && (strings.HasSuffix(prefix, "/") || strings.HasPrefix(p, prefix+"/")) {
			out = append(out, p)
		}
	}
	return out
}

// TestQueryPathLinksNoServerS3OrLineEditor: the default build of
// stablerow, whose every start runs the initialization of every package
// it links, links none of the server, S3 or line-editing packages; the
// full build links each of them (so a renamed package cannot make the
// first check pass by matching nothing).
func TestQueryPathLinksNoServerS3OrLineEditor(t *testing.T) {
	lean := deps(t)
	full := deps(t, "-tags", "stablerow_full")
	for _, prefix := range fullOnly {
		if ps := linked(lean, prefix); len(ps) > 0 {
			t.Errorf("the query-path build links %d package(s) under %s, e.g. %s (go list -deps ./cmd/stablerow)", len(ps), prefix, ps[0])
		}
		if len(linked(full, prefix)) == 0 {
			t.Errorf("the full build links nothing under %s: the list above is stale", prefix)
		}
	}
}

// TestNeedsFull: serve and s3:// locations, in any flag form, go to the
// full build; a local database and an SQL text naming s3:// do not.
func TestNeedsFull(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"serve", "-d", "db"}, true},
		{[]string{"sql", "-d", "s3://b/db", "-e", "SELECT 1"}, true},
		{[]string{"sql", "-d=s3://b/db", "-e", "SELECT 1"}, true},
		{[]string{"inspect", "s3://b/db/t"}, true},
		{[]string{"vacuum", "--d=S3://b/db"}, true},
		{[]string{"sql", "-d", "db", "-e", "SELECT 's3://b/x'"}, false},
		{[]string{"sql", "-d", "/tmp/s3:/db", "-e", "SELECT 1"}, false},
		{[]string{"demo", "-d", "file:///tmp/db"}, false},
		{[]string{"version"}, false},
		{nil, false},
	} {
		if got := needsFull(tc.args); got != tc.want {
			t.Errorf("needsFull(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestServeWithoutFullBuild: the query-path build alone (no
// stablerow-full beside it, none on PATH) refuses serve with exit status
// 74 and says how to build the full one; with it beside, serve -help is
// the full build's serve usage.
func TestServeWithoutFullBuild(t *testing.T) {
	alone := filepath.Join(t.TempDir(), "stablerow")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(alone, "serve", "-d", t.TempDir())
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir(), "STABLEROW_DEBUG=")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 74 || !strings.Contains(string(out), "go build -tags stablerow_full") {
		t.Fatalf("serve without the full build: %v\n%s\nwant exit status 74 naming the build", err, out)
	}

	r := cli(t, "", "serve", "-help")
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "-addr") {
		t.Fatalf("serve -help through the full build: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
