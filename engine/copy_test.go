package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/fileio"
)

// TestCopyRoundTrip: a table goes out to Parquet and CSV and back into
// fresh tables; every value (NULLs, unicode, extremes, the text "NULL",
// empty strings) comes back equal to the source rows.
func TestCopyRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 3})
	mustExec(t, db, `CREATE TABLE src (k BIGINT, f DOUBLE PRECISION, s TEXT, b BOOLEAN);
		INSERT INTO src VALUES
		 (1, 1.5, 'plain', true),
		 (9223372036854775807, 1.7976931348623157e308, 'ünïcödé ✓ 日本', false),
		 (-9223372036854775808, -5e-324, 'quote " comma , newline
here', NULL),
		 (NULL, NULL, NULL, NULL),
		 (0, 'Infinity', '', true),
		 (7, 'NaN', 'NULL', false),
		 (8, 0.1, ' spaces ', NULL)`)
	want := run(t, db, "SELECT k, f, s, b FROM src ORDER BY _rowid", nil)
	for _, c := range []struct{ file, opts string }{
		{"t.parquet", ""},
		{"t.csv", ""},
		{"h.csv", " WITH (FORMAT csv, HEADER, DELIMITER ';', NULL 'NULL')"},
		{"x.data", " WITH (FORMAT parquet)"},
	} {
		p := filepath.Join(dir, c.file)
		mustExec(t, db, fmt.Sprintf("COPY src TO '%s'%s", p, c.opts))
		name := strings.ReplaceAll(strings.TrimSuffix(c.file, filepath.Ext(c.file)), ".", "_") + "_" + strings.TrimPrefix(filepath.Ext(c.file), ".")
		mustExec(t, db, fmt.Sprintf("CREATE TABLE %s (k BIGINT, f DOUBLE PRECISION, s TEXT, b BOOLEAN); COPY %s FROM '%s'%s", name, name, p, c.opts))
		got := run(t, db, "SELECT k, f, s, b FROM "+name+" ORDER BY _rowid", nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s%s:\n got %v\nwant %v", c.file, c.opts, got, want)
		}
	}
	// COPY (query) TO, then CREATE TABLE AS over the copied table.
	p := filepath.Join(dir, "q.parquet")
	mustExec(t, db, fmt.Sprintf("COPY (SELECT k * 2 AS k2, s FROM src WHERE k > 0 AND k < 100) TO '%s'", p))
	mustExec(t, db, fmt.Sprintf("CREATE TABLE q (k2 BIGINT, s TEXT); COPY q FROM '%s'", p))
	mustExec(t, db, "CREATE TABLE c AS SELECT k2 + 1 AS k3, s FROM q")
	got := run(t, db, "SELECT k3, s FROM c ORDER BY k3", nil)
	want2 := run(t, db, "SELECT k * 2 + 1, s FROM src WHERE k > 0 AND k < 100 ORDER BY k", nil)
	if fmt.Sprint(got) != fmt.Sprint(want2) {
		t.Errorf("CTAS: got %v want %v", got, want2)
	}
}

// TestCopyErrors: schema mismatches name the column; CSV errors name the
// line; a failed CREATE TABLE AS leaves no table.
func TestCopyErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	db := engine.OpenMemory(engine.Options{Mem: mem})
	mustExec(t, db, "CREATE TABLE a (k BIGINT, s TEXT); INSERT INTO a VALUES (1, 'x'); CREATE TABLE b (k BIGINT, flag BOOLEAN); CREATE TABLE n (k BIGINT NOT NULL)")
	pq := filepath.Join(dir, "a.parquet")
	mustExec(t, db, fmt.Sprintf("COPY a TO '%s'", pq))
	csv := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(csv, []byte("1,t\n2,t\n3,maybe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q    string
		kind *errkind.Kind
		want string
	}{
		{fmt.Sprintf("COPY b FROM '%s'", pq), errkind.InvalidArgument, `file column "s" (utf8) does not fit column "flag"`},
		{fmt.Sprintf("COPY b FROM '%s'", csv), errkind.InvalidArgument, `line 3, column "flag"`},
		{fmt.Sprintf("COPY n FROM '%s'", pq), errkind.InvalidArgument, "2 columns, the table 1"},
		{fmt.Sprintf("COPY a FROM '%s'", filepath.Join(dir, "none.csv")), errkind.NotFound, "none.csv"},
		{fmt.Sprintf("COPY a FROM '%s' WITH (FORMAT xml)", pq), errkind.InvalidArgument, "xml"},
		{fmt.Sprintf("COPY a TO '%s'", filepath.Join(dir, "a.txt")), errkind.InvalidArgument, "extension"},
		{fmt.Sprintf("COPY a FROM '%s' WITH (FORCE_QUOTE *)", csv), errkind.Unsupported, "force_quote"},
		{"CREATE TABLE bad AS SELECT k / 0 AS z FROM a", nil, ""},
	} {
		_, err := db.Exec(context.Background(), c.q, nil)
		if err == nil || (c.kind != nil && (!errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want))) {
			t.Errorf("%s: got %v, want %v containing %q", c.q, err, c.kind, c.want)
		}
	}
	// A COPY TO that fails midway (bigint overflow in the query) leaves no
	// partial file behind.
	part := filepath.Join(dir, "part.csv")
	mustExec(t, db, "INSERT INTO a VALUES (9223372036854775807, 'max')")
	if _, err := db.Exec(context.Background(), fmt.Sprintf("COPY (SELECT k + 1 AS k FROM a) TO '%s'", part), nil); !errors.Is(err, errkind.OutOfRange) {
		t.Errorf("overflowing COPY TO: %v", err)
	}
	if _, err := os.Stat(part); !os.IsNotExist(err) {
		t.Errorf("a failed COPY TO left its file: %v", err)
	}
	if _, err := db.Exec(context.Background(), "SELECT * FROM bad", nil); err == nil {
		t.Error("a failed CREATE TABLE AS left its table")
	}
	if got := run(t, db, "SELECT count(*) FROM b", nil); fmt.Sprint(got) != "[[0]]" {
		t.Errorf("a failed COPY FROM left rows: %v", got)
	}
}

// TestCopyFilePolicy: under a root policy (the server's), paths resolve
// inside the root and every escape is refused as PermissionDenied.
func TestCopyFilePolicy(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "files")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(base, "secret.csv"), []byte("1\n"), 0o644)
	os.Symlink(filepath.Join(base, "secret.csv"), filepath.Join(root, "link.csv"))
	db := engine.OpenMemory(engine.Options{})
	mustExec(t, db, "CREATE TABLE t (k BIGINT); INSERT INTO t VALUES (1)")
	ctx := engine.WithFilePolicy(context.Background(), fileio.Policy{Root: root})
	if _, err := db.Exec(ctx, "COPY t TO 'out.csv'; COPY t FROM 'out.csv'", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "out.csv")); err != nil {
		t.Fatalf("not written inside the root: %v", err)
	}
	for _, q := range []string{
		"COPY t FROM '../secret.csv'", "COPY t FROM '" + filepath.Join(base, "secret.csv") + "'",
		"COPY t FROM 'link.csv'", "COPY t TO '../escape.csv'", "CREATE TABLE z AS SELECT 1 AS k; COPY z TO '/tmp/x.csv'",
	} {
		if _, err := db.Exec(ctx, q, nil); !errors.Is(err, errkind.PermissionDenied) {
			t.Errorf("%s: %v, want PermissionDenied", q, err)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "escape.csv")); err == nil {
		t.Fatal("wrote outside the root")
	}
	if _, err := db.Exec(engine.WithFilePolicy(context.Background(), fileio.Policy{}), "COPY t TO 'x.csv'", nil); !errors.Is(err, errkind.PermissionDenied) {
		t.Fatalf("zero policy: %v", err)
	}
}

func mustExec(t *testing.T, db *engine.DB, q string) {
	t.Helper()
	res, err := db.Exec(context.Background(), q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	res.Release()
}
