package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// readArrow reads an Arrow IPC stream back with arrow-go's reader and
// returns the schema and each row's values as text, NULL as "NULL".
func readArrow(t *testing.T, r io.Reader) (*arrow.Schema, [][]string) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rd, err := ipc.NewReader(r, ipc.WithAllocator(mem))
	if err != nil {
		t.Fatalf("not an Arrow IPC stream: %v", err)
	}
	defer rd.Release()
	var rows [][]string
	for rd.Next() {
		b := rd.RecordBatch()
		for i := range int(b.NumRows()) {
			var row []string
			for _, c := range b.Columns() {
				if c.IsNull(i) {
					row = append(row, "NULL")
				} else {
					row = append(row, c.ValueStr(i))
				}
			}
			rows = append(rows, row)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return rd.Schema(), rows
}

// TestCLIFormatArrow: -format arrow writes an Arrow IPC stream (to -o FILE,
// or to standard output when it is not a terminal) that arrow-go's reader
// reads back with the types, NULLs and NaN intact; -max-rows cuts it and
// says so on standard error; an empty result is a stream with the schema
// and no rows.
func TestCLIFormatArrow(t *testing.T) {
	dir := formatDB(t)
	q := "SELECT k, s, f FROM t ORDER BY k"
	want := "[[1 a,\"b\" 0.1] [2 NULL NaN] [3  NULL] [4 x<y 1e-05]]"

	r := cli(t, "", "sql", "-d", dir, "-format", "arrow", "-e", q)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	schema, rows := readArrow(t, strings.NewReader(r.stdout))
	if got := fmtRows(rows); got != want {
		t.Fatalf("rows %s, want %s", got, want)
	}
	for i, typ := range []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64} {
		if !arrow.TypeEqual(schema.Field(i).Type, typ) {
			t.Errorf("column %d: %s, want %s", i, schema.Field(i).Type, typ)
		}
	}
	if !strings.Contains(r.stderr, "(4 rows)") {
		t.Errorf("no count on stderr: %q", r.stderr)
	}

	file := filepath.Join(t.TempDir(), "out.arrow")
	r = cli(t, "", "sql", "-d", dir, "-format", "arrow", "-o", file, "-max-rows", "2", "-e", q)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("-o: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, rows := readArrow(t, bytes.NewReader(data)); fmtRows(rows) != "[[1 a,\"b\" 0.1] [2 NULL NaN]]" {
		t.Fatalf("-max-rows 2: %s", fmtRows(rows))
	}
	if !strings.Contains(r.stderr, "... 2 more rows not shown") {
		t.Errorf("the cut is not said: %q", r.stderr)
	}

	// Many batches (the engine's batch is smaller than 100000 rows).
	r = cli(t, "", "sql", "-d", dir, "-format", "arrow", "-e", "SELECT g FROM generate_series(1, 100000) AS g(g)")
	_, rows = readArrow(t, strings.NewReader(r.stdout))
	if len(rows) != 100000 || rows[99999][0] != "100000" {
		t.Fatalf("%d rows", len(rows))
	}

	r = cli(t, "", "sql", "-d", dir, "-format", "arrow", "-e", "SELECT k FROM t WHERE k > 100")
	if schema, rows := readArrow(t, strings.NewReader(r.stdout)); len(rows) != 0 || schema.NumFields() != 1 {
		t.Fatalf("empty result: %v %v", schema, rows)
	}
}

// TestCLIFormatArrowTerminal: binary output to a terminal is refused
// (exit 2) with the way out; nothing is written.
func TestCLIFormatArrowTerminal(t *testing.T) {
	dir := formatDB(t)
	tm := startTerm(t, nil, "sql", "-d", dir, "-format", "arrow", "-e", "SELECT k FROM t")
	out := tm.expect("-o FILE", 10*time.Second)
	if code := tm.exit(10 * time.Second); code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, out)
	}
	tm = startTerm(t, nil, "sql", "-d", dir, "-format", "arrow")
	tm.expect("-o FILE", 10*time.Second)
	if code := tm.exit(10 * time.Second); code != 2 {
		t.Fatalf("prompt: exit %d, want 2", code)
	}
}

func fmtRows(rows [][]string) string {
	var sb strings.Builder
	sb.WriteString("[")
	for i, r := range rows {
		if i > 0 {
			sb.WriteString(" ")
		}
		sb.WriteString("[" + strings.Join(r, " ") + "]")
	}
	sb.WriteString("]")
	return sb.String()
}
