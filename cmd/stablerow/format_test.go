package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// formatDB is a table whose values exercise the formats: a quote and a
// comma, NULL next to the empty string, NaN and NULL floats.
func formatDB(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, `CREATE TABLE t (k BIGINT NOT NULL, s TEXT, f DOUBLE PRECISION);
		INSERT INTO t VALUES (1, 'a,"b"', 0.1), (2, NULL, CAST('NaN' AS DOUBLE PRECISION)), (3, '', NULL), (4, 'x<y', 1e-5)`, "-create")
	return dir
}

// TestCLIFormatCSV: -format csv is RFC 4180 (read back here with
// encoding/csv), a header of column names, NULL as an empty field, floats
// as PostgreSQL prints them; the counts and times go to standard error,
// so standard output is the data only.
func TestCLIFormatCSV(t *testing.T) {
	dir := formatDB(t)
	r := cli(t, "", "sql", "-d", dir, "-format", "csv", "-e", "SELECT k, s, f FROM t ORDER BY k")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, r.stdout)
	}
	want := [][]string{{"k", "s", "f"}, {"1", `a,"b"`, "0.1"}, {"2", "", "NaN"}, {"3", "", ""}, {"4", "x<y", "1e-05"}}
	if len(recs) != len(want) {
		t.Fatalf("records %q, want %q", recs, want)
	}
	for i := range want {
		if strings.Join(recs[i], "\x00") != strings.Join(want[i], "\x00") {
			t.Fatalf("record %d: %q, want %q", i, recs[i], want[i])
		}
	}
	if !strings.Contains(r.stdout, `"a,""b"""`) {
		t.Errorf("quote not doubled inside a quoted field:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "(4 rows)") {
		t.Errorf("no count on stderr: %q", r.stderr)
	}
	// No display cap by default for a machine format; -max-rows still cuts,
	// and says so on stderr.
	q := "SELECT g FROM generate_series(1, 120) AS g(g)"
	if r := cli(t, "", "sql", "-d", dir, "-format", "csv", "-e", q); strings.Count(r.stdout, "\n") != 121 {
		t.Errorf("csv printed %d lines of 121", strings.Count(r.stdout, "\n"))
	}
	r = cli(t, "", "sql", "-d", dir, "-format", "csv", "-max-rows", "10", "-e", q)
	if strings.Count(r.stdout, "\n") != 11 || !strings.Contains(r.stderr, "... 110 more rows not shown") {
		t.Errorf("-max-rows 10: %d lines, stderr %q", strings.Count(r.stdout, "\n"), r.stderr)
	}
}

// TestCLIFormatJSON: -format json is one object per row and line, keys in
// column order, NULL as null, numbers as numbers, NaN (no JSON number) as
// PostgreSQL's to_json writes it, a string. Compared with a hand-checked
// golden text.
func TestCLIFormatJSON(t *testing.T) {
	dir := formatDB(t)
	r := cli(t, "", "sql", "-d", dir, "-format", "json", "-e", "SELECT k, s, f, k > 2 AS big FROM t ORDER BY k")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := `{"k":1,"s":"a,\"b\"","f":0.1,"big":false}
{"k":2,"s":null,"f":"NaN","big":false}
{"k":3,"s":"","f":null,"big":true}
{"k":4,"s":"x<y","f":1e-05,"big":true}
`
	if r.stdout != want {
		t.Fatalf("json:\n%s\nwant:\n%s", r.stdout, want)
	}
}

// TestCLIOutputFile: -o FILE holds what standard output would; nothing
// else is printed there. A format that does not exist is a bad command
// line.
func TestCLIOutputFile(t *testing.T) {
	dir := formatDB(t)
	file := filepath.Join(t.TempDir(), "out.json")
	r := cli(t, "", "sql", "-d", dir, "-format", "json", "-o", file, "-e", "SELECT k FROM t WHERE k < 3 ORDER BY k")
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "{\"k\":1}\n{\"k\":2}\n" {
		t.Fatalf("file: %q, %v", b, err)
	}
	table := filepath.Join(t.TempDir(), "out.txt")
	if r := cli(t, "", "sql", "-d", dir, "-o", table, "-e", "SELECT k FROM t WHERE k = 1"); r.code != 0 || r.stdout != "" {
		t.Fatalf("table to a file: exit %d, stdout %q", r.code, r.stdout)
	}
	if b, _ := os.ReadFile(table); !strings.Contains(string(b), " k\n---\n 1\n(1 row)\n") {
		t.Fatalf("table file:\n%s", b)
	}
	if r := cli(t, "", "sql", "-d", dir, "-format", "xml", "-e", "SELECT 1"); r.code != 2 || !strings.Contains(r.stderr, `"xml"`) {
		t.Fatalf("-format xml: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestCLIMaintenanceSays: CREATE INDEX, CLUSTER and REINDEX print what
// they did (they printed "ok (0 rows affected)"); the counts are the
// table's, known here by construction: two INSERTs are two fragments,
// 5 rows live after one DELETE.
func TestCLIMaintenanceSays(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT); INSERT INTO t VALUES (1), (2), (3); INSERT INTO t VALUES (4), (5), (6); DELETE FROM t WHERE k = 2", "-create")
	for _, c := range []struct{ stmt, want string }{
		{"CREATE INDEX rid ON t USING btree (_rowid)", "CREATE INDEX rid (btree on _rowid, 2 fragments, 5 rows)\n"},
		{"CREATE INDEX ON t USING btree (k)", "CREATE INDEX t_k_idx (btree on k, 2 fragments, 5 rows)\n"},
		{"CLUSTER t USING t_k_idx", "CLUSTER t USING t_k_idx (5 rows in 4 fragments; index remap deferred until REINDEX)\n"},
		{"REINDEX INDEX rid", "REINDEX INDEX rid (btree on _rowid, 4 fragments, 5 rows)\n"},
		{"REINDEX TABLE t", "REINDEX TABLE t: rid (btree on _rowid, 4 fragments, 5 rows), t_k_idx (btree on k, 4 fragments, 5 rows)\n"},
	} {
		out := mustSQL(t, dir, c.stmt)
		if !strings.HasPrefix(out, c.want) {
			t.Errorf("%s printed %q, want %q", c.stmt, out, c.want)
		}
	}
}

// TestCLICommandTags: a statement without a result set prints PostgreSQL's
// command tag, as psql does (it printed "ok (0 rows affected)" for CREATE
// TABLE), and a result's footer is psql's "(1 row)" / "(N rows)".
func TestCLICommandTags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	csv := filepath.Join(t.TempDir(), "x.csv")
	out := mustSQL(t, dir, "CREATE TABLE x (a BIGINT); INSERT INTO x VALUES (1), (2); UPDATE x SET a = 3 WHERE a = 1; "+
		"CREATE TABLE y AS SELECT * FROM x; DELETE FROM y; DROP TABLE y; SET threads = 2; RESET threads; "+
		"COPY x TO '"+csv+"' WITH (FORMAT csv); SELECT a FROM x WHERE a = 3; SELECT a FROM x WHERE a > 9", "-create")
	var got []string
	for _, line := range strings.Split(out, "\n") {
		if line != "" && !strings.HasPrefix(line, "time: ") {
			got = append(got, line)
		}
	}
	want := []string{"CREATE TABLE", "INSERT 0 2", "UPDATE 1", "SELECT 2", "DELETE 2", "DROP TABLE", "SET", "RESET", "COPY 2",
		" a", "---", " 3", "(1 row)", " a", "---", "(0 rows)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("printed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCLIFormatJSONNumbers: numerics and integers are JSON numbers, in the
// text the table prints (scale kept), where a reader that parses numbers
// into doubles gets the value back exactly (at most 15 significant digits;
// integers up to 2^53), and JSON strings of the same text past that, so
// no reader rounds them (issue 31 item 5). Every line must be JSON.
func TestCLIFormatJSONNumbers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, `CREATE TABLE n (k INT, amount NUMERIC(10,2), big NUMERIC(30,0), tiny NUMERIC(30,25), i BIGINT);
		INSERT INTO n VALUES (1, 50.50, 12345678901234567890, -0.000000000000000000001, 9007199254740992),
			(2, -0.05, 123456789012345, 1.2345678901234567890123456, 9007199254740993),
			(3, 99999999.99, -1000000000000000000000000000, 0, -9007199254740993)`, "-create")
	r := cli(t, "", "sql", "-d", dir, "-format", "json", "-e", "SELECT amount, big, tiny, i FROM n ORDER BY k")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := `{"amount":50.50,"big":"12345678901234567890","tiny":-0.0000000000000000000010000,"i":9007199254740992}
{"amount":-0.05,"big":123456789012345,"tiny":"1.2345678901234567890123456","i":"9007199254740993"}
{"amount":99999999.99,"big":-1000000000000000000000000000,"tiny":0.0000000000000000000000000,"i":"-9007199254740993"}
`
	if r.stdout != want {
		t.Fatalf("json:\n%s\nwant:\n%s", r.stdout, want)
	}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("not JSON: %s", line)
		}
	}
}
