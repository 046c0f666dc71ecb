package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeIDs writes ids 0..n-1 to a file, separated as a user might mix
// them: lines, commas with spaces, CRLF and tabs.
func writeIDs(t *testing.T, n int) string {
	t.Helper()
	var sb strings.Builder
	seps := []string{"\n", ", ", "\r\n", "\t", ","}
	for i := range n {
		fmt.Fprintf(&sb, "%d%s", i, seps[i%len(seps)])
	}
	path := filepath.Join(t.TempDir(), "ids.txt")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestParamFileAllocatesTheListOnly: -p ids=@FILE allocates the list (8
// bytes a value) and a read buffer, not the file's text nor a string per
// value. Before, a 10M-id file cost 80 MB of text and 160 MB of strings on
// top of the 80 MB list, and the CLI's peak RSS followed.
func TestParamFileAllocatesTheListOnly(t *testing.T) {
	n := 1 << 20
	if testing.Short() {
		n = 1 << 18
	}
	path := writeIDs(t, n)
	p := paramFlags{}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := p.Set("ids=@" + path); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	list, ok := p["ids"].([]int64)
	if !ok || len(list) != n {
		t.Fatalf("ids is %T of %d, want []int64 of %d", p["ids"], len(list), n)
	}
	for i, x := range list {
		if x != int64(i) {
			t.Fatalf("ids[%d] = %d", i, x)
		}
	}
	// The list, and two 64 KiB scanner buffers with change.
	bound := uint64(8*n + 512<<10)
	if got := after.TotalAlloc - before.TotalAlloc; got > bound {
		t.Fatalf("reading %d ids allocated %d bytes, want at most %d (the list is %d)", n, got, bound, 8*n)
	}
}

// TestParamFileBadValues: a bad value in a file is named by its position
// and text; a value too long to be an integer is an error, not a hang or
// a huge allocation; an empty file is the empty list.
func TestParamFileBadValues(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p := paramFlags{}
	err := p.Set("ids=@" + write("bad.txt", "1\n 2,,3\nthree\n4"))
	if err == nil || !strings.Contains(err.Error(), `parameter ids: value 4, "three", is not a 64-bit integer`) || !strings.Contains(err.Error(), "bad.txt") {
		t.Fatalf("bad value: %v", err)
	}
	err = p.Set("ids=@" + write("huge.txt", "1,"+strings.Repeat("9", maxField+10)+",3"))
	if !errors.Is(err, errFieldTooLong) || !strings.Contains(err.Error(), "value 2") {
		t.Fatalf("value too long: %v", err)
	}
	if err := p.Set("ids=@" + write("empty.txt", " \n,\n")); err != nil {
		t.Fatal(err)
	}
	if l, ok := p["ids"].([]int64); !ok || len(l) != 0 {
		t.Fatalf("empty file: %#v", p["ids"])
	}
	if err := p.Set("ids=@" + write("last.txt", "7\n-8,9223372036854775807")); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(p["ids"]); got != "[7 -8 9223372036854775807]" {
		t.Fatalf("no separator after the last value: %s", got)
	}
	if err := p.Set("ids=@" + filepath.Join(dir, "missing.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}
