package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bin is the stablerow binary the subprocess tests run: built once by
// TestMain, or $STABLEROW_BIN (to run these tests against another build,
// e.g. the one before a fix).
var bin string

func TestMain(m *testing.M) {
	if _, ok := os.LookupEnv(envArgs); ok {
		// A stablerow subprocess of the process tests (TestStablerowProcess):
		// it runs main and exits, so it must not build the binaries (each
		// build is ~160 MB under -race, and main's os.Exit would leave the
		// directory behind: CI's disk filled with them).
		os.Exit(m.Run())
	}
	bin = os.Getenv("STABLEROW_BIN")
	if bin == "" {
		dir, err := os.MkdirTemp("", "stablerow-cli")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		bin = filepath.Join(dir, "stablerow")
		// The query-path build and, beside it, the full build it runs for
		// serve, s3:// and a prompt on a terminal (lean.go).
		for _, b := range [][]string{{"-o", bin}, {"-tags", "stablerow_full", "-o", filepath.Join(dir, fullName)}} {
			out, err := exec.Command("go", append(append([]string{"build"}, b...), ".")...).CombinedOutput()
			if err != nil {
				fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
				os.Exit(1)
			}
		}
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// cli runs the binary with args (and stdin, if not empty).
func cli(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "STABLEROW_DEBUG=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// mustSQL runs statements that must succeed and returns stdout.
func mustSQL(t *testing.T, dir, script string, args ...string) string {
	t.Helper()
	r := cli(t, "", append([]string{"sql", "-d", dir, "-e", script}, args...)...)
	if r.code != 0 {
		t.Fatalf("sql %q: exit %d\nstdout:\n%s\nstderr:\n%s", script, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// tableRows are the printed rows of every result table in out (lines
// between a "---" separator and the "(N rows)" line), time lines dropped.
func tableRows(out string) [][]string {
	var tables [][]string
	var cur []string
	in := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "---"):
			in, cur = true, nil
		case in && strings.HasPrefix(line, "("):
			tables = append(tables, cur)
			in = false
		case in && !strings.HasPrefix(line, "..."):
			cur = append(cur, strings.TrimSpace(line))
		}
	}
	return tables
}

func newDB(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE a (k BIGINT NOT NULL, s TEXT)", "-create")
	return dir
}

// TestCLIScriptPrintsEveryStatement: -e 'A; B; C' runs each statement in
// order and prints each one's result (not only the last one's); a ';'
// inside a string, a quoted identifier, a dollar quote or a comment does
// not end a statement.
func TestCLIScriptPrintsEveryStatement(t *testing.T) {
	dir := newDB(t)
	out := mustSQL(t, dir, `INSERT INTO a VALUES (1, 'x;y'); SELECT s FROM a; /* c; */ SELECT k, $$a;b$$ AS "d;q" FROM a -- tail; comment
; SELECT 2 AS two`)
	if !strings.HasPrefix(out, "INSERT 0 1\n") {
		t.Fatalf("the INSERT's result is not printed first:\n%s", out)
	}
	got := tableRows(out)
	want := [][]string{{"x;y"}, {"1 | a;b"}, {"2"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("results %q, want %q; output:\n%s", got, want, out)
	}
	if !strings.Contains(out, " k | d;q") {
		t.Fatalf("quoted column name lost:\n%s", out)
	}
}

// TestCLIScriptStopsAtFirstError: a statement that does not parse is
// reported (with its statement number and line) and ends the script with a
// non-zero status; the script is parsed whole first, so no statement ran,
// neither before it nor after (issue 31: the one before it used to
// commit). libpg_query's scanner split used to drop "SELEC 2" and run the
// rest.
func TestCLIScriptStopsAtFirstError(t *testing.T) {
	dir := newDB(t)
	r := cli(t, "", "sql", "-d", dir, "-e", "INSERT INTO a VALUES (2, 'b');\nSELEC 2;\nINSERT INTO a VALUES (3, 'c')")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "statement 2 (line 2)") || !strings.Contains(r.stderr, `syntax error at or near "SELEC"`) {
		t.Fatalf("error does not place the failed statement: %q", r.stderr)
	}
	if got := tableRows(mustSQL(t, dir, "SELECT count(*) FROM a WHERE k IN (2, 3)")); fmt.Sprint(got) != "[[0]]" {
		t.Fatalf("rows of the failed script: %v, want none", got)
	}
	// An unterminated literal is an error, not a statement silently cut.
	r = cli(t, "", "sql", "-d", dir, "-e", "INSERT INTO a VALUES (4, 'd'); SELECT 'open; INSERT INTO a VALUES (5, 'e')")
	if r.code != 1 || !strings.Contains(r.stderr, "unterminated quoted string") {
		t.Fatalf("unterminated literal: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := tableRows(mustSQL(t, dir, "SELECT count(*) FROM a WHERE k IN (2, 3, 4, 5)")); fmt.Sprint(got) != "[[0]]" {
		t.Fatalf("rows of the failed scripts: %v, want none", got)
	}
}

// TestCLIPromptScript: statements piped to the prompt end at a ';' outside
// literals and comments, whatever the line breaks; the first error ends a
// piped script with a non-zero status.
func TestCLIPromptScript(t *testing.T) {
	dir := newDB(t)
	in := "INSERT INTO a VALUES (7, 'g;\n');\nSELECT k, -- a comment; not the end\n s FROM a; SELECT 8 AS eight;\nSELECT 9\n AS nine"
	r := cli(t, in, "sql", "-d", dir)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	got := tableRows(r.stdout)
	if len(got) != 3 || !strings.HasPrefix(got[0][0], "7 | g;") || got[1][0] != "8" || got[2][0] != "9" {
		t.Fatalf("prompt results %q\n%s", got, r.stdout)
	}
	r = cli(t, "SELECT 1 AS one;\nSELECT nope FROM a;\nINSERT INTO a VALUES (10, 'x');\n", "sql", "-d", dir)
	if r.code != 1 || !strings.Contains(r.stderr, "nope") {
		t.Fatalf("piped script with an error: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := tableRows(mustSQL(t, dir, "SELECT count(*) AS n FROM a")); fmt.Sprint(got) != "[[1]]" {
		t.Fatalf("the statement after the error ran: %v", got)
	}
}

// TestCLIParamShape: a list bound to a scalar parameter is an error naming
// the parameter and the type it needs (it was a panic in arrow-go's
// scalar.MakeScalar); a single value binds as a scalar.
func TestCLIParamShape(t *testing.T) {
	dir := newDB(t)
	mustSQL(t, dir, "INSERT INTO a VALUES (1, 'x')")
	r := cli(t, "", "sql", "-d", dir, "-e", "SELECT k + :x AS y FROM a", "-p", "x=7,8")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"parameter :x", "list of 2 values", "want one int64"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q lacks %q", r.stderr, want)
		}
	}
	if strings.Contains(r.stderr, "goroutine") || strings.Contains(r.stderr, "makescalar") {
		t.Errorf("panic text reached the user: %q", r.stderr)
	}
	if got := tableRows(mustSQL(t, dir, "SELECT k + :x AS y FROM a", "-p", "x=7")); fmt.Sprint(got) != "[[8]]" {
		t.Fatalf("scalar parameter: %v", got)
	}
	r = cli(t, "", "sql", "-d", dir, "-e", "SELECT 1", "-p", "x=1,zz")
	if r.code != 2 || !strings.Contains(r.stderr, "parameter x") || !strings.Contains(r.stderr, `"zz"`) {
		t.Fatalf("bad value: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestCLIParamsFromFile: -p ids=@FILE reads a list longer than a command
// line holds (one id a line, or comma-separated); a bad line names the
// parameter.
func TestCLIParamsFromFile(t *testing.T) {
	dir := newDB(t)
	var sb strings.Builder
	const n = 200_000
	for i := 1; i <= n; i++ {
		sep := "\n"
		if i%3 == 0 {
			sep = ", "
		}
		fmt.Fprintf(&sb, "%d%s", i, sep)
	}
	ids := filepath.Join(t.TempDir(), "ids.txt")
	if err := os.WriteFile(ids, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustSQL(t, dir, "SELECT count(*) AS n FROM UNNEST(:ids) WITH ORDINALITY AS v(id, ord) WHERE v.id = v.ord", "-p", "ids=@"+ids)
	if got := tableRows(out); fmt.Sprint(got) != fmt.Sprintf("[[%d]]", n) {
		t.Fatalf("count over %d ids from a file: %v\n%s", n, got, out)
	}
	if err := os.WriteFile(ids, []byte("1\n2\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := cli(t, "", "sql", "-d", dir, "-e", "SELECT 1", "-p", "ids=@"+ids)
	if r.code != 2 || !strings.Contains(r.stderr, "parameter ids") || !strings.Contains(r.stderr, `"three"`) {
		t.Fatalf("bad id in file: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestCLISubstraitSingleParam: `substrait -p 1=5` binds the UNNEST list of
// one id without a trailing comma.
func TestCLISubstraitSingleParam(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT NOT NULL, s TEXT); INSERT INTO t SELECT g, 'r' FROM generate_series(1, 10) AS g(g); CREATE INDEX rid ON t USING btree (_rowid)", "-create")
	plan := filepath.Join("..", "..", "testdata", "substrait", "seed_take.json")
	one := cli(t, "", "substrait", "-d", dir, "-f", plan, "-p", "1=5")
	list := cli(t, "", "substrait", "-d", dir, "-f", plan, "-p", "1=5,")
	if one.code != 0 || list.code != 0 {
		t.Fatalf("exit %d / %d\n%s\n%s", one.code, list.code, one.stderr, list.stderr)
	}
	if got, want := tableRows(one.stdout), tableRows(list.stdout); len(got) != 1 || len(got[0]) != 1 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("-p 1=5 gave %v, -p 1=5, gave %v", got, want)
	}
}

// TestCLIMaxRows: the display cap says how many rows it cut; -max-rows 0
// prints them all.
func TestCLIMaxRows(t *testing.T) {
	dir := newDB(t)
	q := "SELECT g FROM generate_series(1, 120) AS g(g)"
	out := mustSQL(t, dir, q)
	if rows := tableRows(out); len(rows) != 1 || len(rows[0]) != 50 || rows[0][49] != "50" {
		t.Fatalf("default cap: %v", rows)
	}
	if !strings.Contains(out, "... 70 more rows not shown") || !strings.Contains(out, "(120 rows)") {
		t.Fatalf("cut not said:\n%s", out)
	}
	out = mustSQL(t, dir, q, "-max-rows", "0")
	if rows := tableRows(out); len(rows[0]) != 120 || strings.Contains(out, "more rows") {
		t.Fatalf("-max-rows 0 printed %d rows", len(rows[0]))
	}
	out = mustSQL(t, dir, "SELECT CAST(1234567 AS DOUBLE PRECISION) AS f, CAST(0.00001 AS DOUBLE PRECISION) AS g")
	if rows := tableRows(out); fmt.Sprint(rows) != "[[1234567 | 1e-05]]" {
		t.Fatalf("floats not printed as PostgreSQL does: %v", rows)
	}
}

// TestCLICorruptManifest: a flipped byte in the manifest is a non-zero
// exit (3, corrupt data) with a message that says so.
func TestCLICorruptManifest(t *testing.T) {
	dir := newDB(t)
	mustSQL(t, dir, "INSERT INTO a VALUES (1, 'x')")
	ms, err := filepath.Glob(filepath.Join(dir, "a", "_versions", "*.manifest"))
	if err != nil || len(ms) == 0 {
		t.Fatalf("no manifest: %v %v", ms, err)
	}
	for _, m := range ms {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x5a
		if err := os.WriteFile(m, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := cli(t, "", "sql", "-d", dir, "-e", "SELECT k FROM a")
	if r.code != 3 || !strings.Contains(r.stderr, "corrupt") {
		t.Fatalf("exit %d, want 3 with 'corrupt'\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestCLIErrorBeforeRows: a query that fails before its first row prints
// the error and no table (it printed an empty header that read as "no
// rows" above the error); one that fails later prints the rows before.
func TestCLIErrorBeforeRows(t *testing.T) {
	dir := newDB(t)
	mustSQL(t, dir, "INSERT INTO a SELECT g, 's' FROM generate_series(1, 10) AS g(g)")
	r := cli(t, "", "sql", "-d", dir, "-e", "SELECT 1 / (k - 1) AS x FROM a")
	if r.code != 1 || !strings.Contains(r.stderr, "division by zero") || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
