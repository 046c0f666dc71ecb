package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestParamFilePipe: -p ids=@/dev/stdin (or any file that cannot be read
// twice) is read once into a growing list.
func TestParamFilePipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const n = 100_000
	go func() {
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, "%d\n", i*3)
		}
		w.WriteString(sb.String())
		w.Close()
	}()
	p := paramFlags{}
	if err := p.Set(fmt.Sprintf("ids=@/proc/self/fd/%d", r.Fd())); err != nil {
		t.Fatal(err)
	}
	list, ok := p["ids"].([]int64)
	if !ok || len(list) != n {
		t.Fatalf("ids is %T of %d, want []int64 of %d", p["ids"], len(list), n)
	}
	for i, x := range list {
		if x != int64(i*3) {
			t.Fatalf("ids[%d] = %d", i, x)
		}
	}
}
