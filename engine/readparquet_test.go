package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/fileio"
)

// TestReadParquetInFrom: read_parquet('f') plans with the file's schema and
// answers as the table it was copied from does; under a root policy the
// same escapes as COPY's are refused, at plan time.
func TestReadParquetInFrom(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 100})
	mustExec(t, db, `CREATE TABLE t (k BIGINT, s TEXT, f DOUBLE PRECISION);
		INSERT INTO t SELECT g, CAST(g AS TEXT), g / 4.0 FROM generate_series(1, 1000) AS g(g);
		INSERT INTO t VALUES (NULL, NULL, NULL)`)
	p := filepath.Join(dir, "t.parquet")
	mustExec(t, db, fmt.Sprintf("COPY t TO '%s'", p))
	for _, q := range []string{
		"SELECT count(*), count(k), sum(k), min(s), max(f) FROM %s",
		"SELECT k, s FROM %s WHERE k %% 97 = 0 ORDER BY k DESC",
	} {
		want := run(t, db, fmt.Sprintf(q, "t"), nil)
		got := run(t, db, fmt.Sprintf(q, "read_parquet('"+p+"')"), nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n got %v\nwant %v", q, got, want)
		}
	}
	// Aliased columns, and a join of the file with the table.
	got := run(t, db, fmt.Sprintf("SELECT x.a, t.s FROM read_parquet('%s') AS x(a) JOIN t ON t.k = x.a WHERE x.a <= 2 ORDER BY x.a", p), nil)
	if fmt.Sprint(got) != "[[1 1] [2 2]]" {
		t.Errorf("alias join: %v", got)
	}
	// CREATE TABLE AS from a file.
	mustExec(t, db, fmt.Sprintf("CREATE TABLE c AS SELECT * FROM read_parquet('%s')", p))
	if got := run(t, db, "SELECT count(*), sum(k) FROM c", nil); fmt.Sprint(got) != "[[1001 500500]]" {
		t.Errorf("CTAS from parquet: %v", got)
	}

	// Under a root: inside works, outside is refused before anything runs.
	root := filepath.Join(dir, "root")
	os.MkdirAll(root, 0o755)
	os.Symlink(p, filepath.Join(root, "link.parquet"))
	data, _ := os.ReadFile(p)
	os.WriteFile(filepath.Join(root, "in.parquet"), data, 0o644)
	ctx := engine.WithFilePolicy(context.Background(), fileio.Policy{Root: root})
	res, err := db.Exec(ctx, "SELECT count(*) FROM read_parquet('in.parquet')", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Release()
	for _, name := range []string{"../t.parquet", p, "link.parquet"} {
		_, err := db.Exec(ctx, "SELECT * FROM read_parquet('"+name+"')", nil)
		if !errors.Is(err, errkind.PermissionDenied) {
			t.Errorf("%s: %v, want PermissionDenied", name, err)
		}
	}
	if _, err := db.Exec(context.Background(), "SELECT * FROM read_parquet('"+filepath.Join(dir, "missing.parquet")+"')", nil); !errors.Is(err, errkind.NotFound) {
		t.Errorf("missing file: %v", err)
	}
}
