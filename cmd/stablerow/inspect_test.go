package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/stablerow/stablerow/rowmap"
)

// workedExample writes the rowmap package's worked example (8 rows in
// blocks of 4, row 2 deleted) to dir and returns its path and bytes.
func workedExample(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	w, err := rowmap.NewWriter([]uint32{10, 11}, []rowmap.SourceFragment{{PhysicalRows: 5, Deleted: roaring.BitmapOf(2)}, {PhysicalRows: 3}}, rowmap.WriterOptions{BlockSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append([]uint16{0, 1, 0, 0, 1, 0, 1}); err != nil {
		t.Fatal(err)
	}
	file, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "m.rowmap")
	if err := os.WriteFile(p, file, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, file
}

// TestInspectRowmap checks `stablerow inspect FILE.rowmap` against the
// golden description of the worked example that the rowmap package's test
// holds (reviewed by hand there).
func TestInspectRowmap(t *testing.T) {
	p, _ := workedExample(t, t.TempDir())
	var out bytes.Buffer
	if err := inspect(context.Background(), &out, []string{p}); err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join("..", "..", "rowmap", "testdata", "describe_worked_example.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(golden) {
		t.Fatalf("inspect printed:\n%s\nwant:\n%s", out.String(), golden)
	}
}

// TestInspectBadInput: a truncated or bit-flipped map is a typed rowmap
// error and prints nothing; a wrong path or argument list is an error.
func TestInspectBadInput(t *testing.T) {
	dir := t.TempDir()
	p, file := workedExample(t, dir)
	for name, b := range map[string][]byte{
		"truncated": file[:len(file)-3],
		"flipped":   append(append([]byte(nil), file[:len(file)-20]...), append([]byte{file[len(file)-20] ^ 0x40}, file[len(file)-19:]...)...),
		"empty":     {},
	} {
		bad := filepath.Join(dir, name+".rowmap")
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		err := inspect(context.Background(), &out, []string{bad})
		if !errors.Is(err, rowmap.ErrCorrupt) {
			t.Fatalf("%s: error %v, want rowmap.ErrCorrupt", name, err)
		}
		if out.Len() != 0 {
			t.Fatalf("%s: printed %q", name, out.String())
		}
	}
	for _, args := range [][]string{{}, {p, p}, {filepath.Join(dir, "missing.rowmap")}, {dir}} {
		if err := inspect(context.Background(), new(bytes.Buffer), args); err == nil {
			t.Fatalf("inspect %v: no error", args)
		} else if len(args) == 1 && args[0] == dir && !strings.Contains(err.Error(), "holds no table") {
			t.Fatalf("inspect of a directory without tables: %v", err)
		}
	}
}

// TestInspectRowmapBadBlock: Open reads only the tail, so a flipped byte in
// a block body went unnoticed and the map was described as sound. Every
// byte of both blocks of the worked example (block 0 at [8, 42), block 1 at
// [42, 68), per the golden description) is flipped in turn: inspect must
// report ErrCorrupt naming that block, and print nothing.
func TestInspectRowmapBadBlock(t *testing.T) {
	dir := t.TempDir()
	_, file := workedExample(t, dir)
	for _, blk := range []struct{ b, lo, hi int }{{0, 8, 42}, {1, 42, 68}} {
		for i := blk.lo; i < blk.hi; i++ {
			c := bytes.Clone(file)
			c[i] ^= 0x01
			bad := filepath.Join(dir, "bad.rowmap")
			if err := os.WriteFile(bad, c, 0o644); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err := inspect(context.Background(), &out, []string{bad})
			if !errors.Is(err, rowmap.ErrCorrupt) {
				t.Fatalf("byte %d flipped: error %v, want rowmap.ErrCorrupt", i, err)
			}
			if want := fmt.Sprintf("block %d:", blk.b); !strings.Contains(err.Error(), want) {
				t.Fatalf("byte %d flipped: %q does not name %q", i, err, want)
			}
			if out.Len() != 0 {
				t.Fatalf("byte %d flipped: printed %q", i, out.String())
			}
		}
	}
}
