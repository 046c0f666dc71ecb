package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestCLIUntypedParamIsText: a parameter nothing types is text, as
// PostgreSQL resolves an unknown in a select list, so -p's integer does
// not bind there; one a comparison types is that type; IS NULL alone
// types nothing: PostgreSQL's "could not determine data type".
func TestCLIUntypedParamIsText(t *testing.T) {
	dir := newDB(t)
	mustSQL(t, dir, "INSERT INTO a VALUES (1, 'x'), (2, 'y')")
	// -p binds integers, and an integer is not text: a typed error.
	r := cli(t, "", "sql", "-d", dir, "-e", "SELECT $1", "-p", "1=5")
	if r.code != 1 || !strings.Contains(r.stderr, "parameter $1") || !strings.Contains(r.stderr, "want utf8") {
		t.Fatalf("SELECT $1 with an integer: exit %d, stderr %q", r.code, r.stderr)
	}
	out := mustSQL(t, dir, "SELECT s FROM a WHERE $1 IS NULL OR k = $1", "-p", "1=2")
	if got := fmt.Sprint(tableRows(out)); got != "[[y]]" {
		t.Fatalf("$1 IS NULL OR k = $1: %s", got)
	}
	r = cli(t, "", "sql", "-d", dir, "-e", "SELECT s FROM a WHERE $1 IS NULL", "-p", "1=2")
	if r.code != 1 || !strings.Contains(r.stderr, "could not determine data type of parameter $1") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}
