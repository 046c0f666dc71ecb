package main

import (
	"strings"
	"testing"
)

// TestCLIHelp: asking any command for help prints its usage on standard
// output and exits 0 (sql --help exited 2, and inspect --help said
// "inspect takes one path").
func TestCLIHelp(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"},
		{"sql", "--help"}, {"sql", "-h"},
		{"substrait", "--help"},
		{"inspect", "--help"}, {"inspect", "-h"},
		{"vacuum", "--help"},
		{"demo", "--help"},
	} {
		r := cli(t, "", args...)
		if r.code != 0 {
			t.Errorf("stablerow %s: exit %d, want 0\nstderr: %s", strings.Join(args, " "), r.code, r.stderr)
			continue
		}
		want := "usage:"
		if len(args) == 2 {
			want = "usage: stablerow " + args[0]
		}
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stablerow %s: stdout lacks %q:\n%s", strings.Join(args, " "), want, r.stdout)
		}
	}
}

// TestCLIBadCommandLine: an unknown command or flag is named in the
// message and exits 2 (an unknown command printed only the usage; demo
// and vacuum exited 1 on a bad flag; inspect took "-zz" for a path).
func TestCLIBadCommandLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		name string
	}{
		{[]string{"sqll"}, `"sqll"`},
		{[]string{"sql", "-zz"}, "-zz"},
		{[]string{"substrait", "-zz"}, "-zz"},
		{[]string{"inspect", "-zz", "x"}, "-zz"},
		{[]string{"vacuum", "-zz"}, "-zz"},
		{[]string{"demo", "-zz"}, "-zz"},
		{[]string{"inspect"}, "one path"},
	} {
		r := cli(t, "", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.name) {
			t.Errorf("stablerow %s: exit %d, stderr %q; want 2 naming %s", strings.Join(c.args, " "), r.code, r.stderr, c.name)
		}
	}
}
