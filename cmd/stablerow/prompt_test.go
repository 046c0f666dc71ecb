package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/engine"
)

// syncBuffer is a bytes.Buffer safe to read while the prompt writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestPromptInterruptReleases: SIGINT while a statement runs cancels that
// statement's context; its Rows stop and give back every byte they took
// from the allocator (checked here), the error is printed, and the session
// runs the next statement. TestPromptTerminal does the same through a
// terminal; this one sees the memory.
func TestPromptInterruptReleases(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	db, err := engine.Open(t.TempDir(), engine.Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	in, feed := io.Pipe()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- prompt(context.Background(), db, nil, sqlOptions{maxRows: 50}, newPlainReader(in, &out, true), &out, true)
	}()
	io.WriteString(feed, "SELECT count(*) AS n FROM generate_series(1, 1000000000000) AS g(g);\n")
	// The prompt is running until feed is closed, so its handler is
	// installed whenever a SIGINT is sent here.
	deadline := time.Now().Add(30 * time.Second)
	for {
		time.Sleep(200 * time.Millisecond)
		if strings.Contains(out.String(), "statement canceled by Ctrl-C") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("SIGINT did not cancel the statement:\n%s", out.String())
		}
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
	}
	// A SIGINT still on its way lands on the idle session, which ignores it.
	time.Sleep(300 * time.Millisecond)
	io.WriteString(feed, "SELECT 7 AS seven;\n")
	feed.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "error: statement canceled by Ctrl-C (context canceled)") || !strings.Contains(s, " seven") {
		t.Fatalf("prompt output:\n%s", s)
	}
}
