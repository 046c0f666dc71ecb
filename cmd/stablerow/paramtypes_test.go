package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestCLIUntypedParamIsText: -p binds text of no type, which the
// statement's use of the parameter types, as PostgreSQL reads a
// text-format parameter (exec_bind_message: the parameter type's input
// function): a parameter nothing types is text, as PostgreSQL resolves an
// unknown in a select list, so `SELECT $1` with -p 1=5 prints 5; one a
// comparison types is that type, and text it cannot read is PostgreSQL's
// "invalid input syntax"; IS NULL alone types nothing: PostgreSQL's
// "could not determine data type".
func TestCLIUntypedParamIsText(t *testing.T) {
	dir := newDB(t)
	mustSQL(t, dir, "INSERT INTO a VALUES (1, 'x'), (2, 'y')")
	for _, c := range []struct{ q, v, want string }{
		{"SELECT $1 AS v", "5", "[[5]]"},
		{"SELECT $1 AS v", "hello", "[[hello]]"},
		{"SELECT length($1) AS v", "hello", "[[5]]"},
		{"SELECT s FROM a WHERE k = $1", "2", "[[y]]"},
		{"SELECT s FROM a WHERE s = $1", "x", "[[x]]"},
		{"SELECT k + $1 AS v FROM a WHERE k = 1", "41", "[[42]]"},
		{"SELECT s FROM a WHERE $1 IS NULL OR k = $1", "2", "[[y]]"},
	} {
		out := mustSQL(t, dir, c.q, "-p", "1="+c.v)
		if got := fmt.Sprint(tableRows(out)); got != c.want {
			t.Errorf("%s with -p 1=%s: %s, want %s", c.q, c.v, got, c.want)
		}
	}
	// A typed context stays typed: text bigint's input function refuses
	// is a typed error naming the parameter, exit 1.
	r := cli(t, "", "sql", "-d", dir, "-e", "SELECT s FROM a WHERE k = $1", "-p", "1=abc")
	if r.code != 1 || !strings.Contains(r.stderr, `parameter $1: invalid input syntax for type bigint: "abc"`) {
		t.Fatalf("k = $1 with abc: exit %d, stderr %q", r.code, r.stderr)
	}
	r = cli(t, "", "sql", "-d", dir, "-e", "SELECT s FROM a WHERE $1 IS NULL", "-p", "1=2")
	if r.code != 1 || !strings.Contains(r.stderr, "could not determine data type of parameter $1") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}
