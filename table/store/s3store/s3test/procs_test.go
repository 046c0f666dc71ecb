package s3test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store/s3store"
)

// The child processes of TestConcurrentCommits are this test binary, run
// with envChild set.
const (
	envChild = "STABLEROW_S3TEST_CHILD"
	envLoc   = "STABLEROW_S3TEST_LOC"
	envW     = "STABLEROW_S3TEST_W"
)

var procOpts = table.Options{BatchRows: 64, MaxRowsPerFragment: 1024}

const (
	baseRows  = 1000
	hotRows   = 10  // row ids 0..9: every writer updates them
	perAppend = 100 // rows each writer appends
)

// hotK is writer w's new k for hot row id; appendK its i-th appended k.
func hotK(w int, id uint64) int64 { return int64(w+1)*1_000_000 + int64(id) }
func appendK(w, i int) int64      { return int64(w+1)*1_000_000_000 + int64(i) }

// TestCommitterChild is one writer of TestConcurrentCommits. It opens the
// table (the version every writer starts from), says "ready", waits for
// "go" on stdin, then from that same snapshot updates the hot rows and
// appends rows of its own, printing "<op> commit <version>" or "<op>
// conflict" for each. Any error but a typed table.ErrConflict fails it.
func TestCommitterChild(t *testing.T) {
	if os.Getenv(envChild) != "committer" {
		t.Skip("a child process of TestConcurrentCommits")
	}
	mem := memory.NewGoAllocator()
	ctx := context.Background()
	w, err := strconv.Atoi(os.Getenv(envW))
	require.NoError(t, err)
	st, err := s3store.New(ctx, os.Getenv(envLoc), s3store.Options{})
	require.NoError(t, err)
	tb, err := table.Open(ctx, st, procOpts)
	require.NoError(t, err)
	fmt.Println("SR ready")
	_, err = bufio.NewReader(os.Stdin).ReadString('\n')
	require.NoError(t, err)

	ids := make([]any, hotRows)
	rows := make([][]any, hotRows)
	for id := range uint64(hotRows) {
		k := hotK(w, id)
		rows[id] = []any{id, k, rowOf(k)}
		ids[id] = id
	}
	usc := arrow.NewSchema(append([]arrow.Field{{Name: "_rowid", Type: arrow.PrimitiveTypes.Uint64}}, schema.Fields()...), nil)
	ub, err := exectest.Batch(mem, usc, rows)
	require.NoError(t, err)
	report := func(op string, nt *table.Table, err error) {
		switch {
		case err == nil:
			fmt.Printf("SR %s commit %d\n", op, nt.Version())
		case errors.Is(err, table.ErrConflict):
			fmt.Printf("SR %s conflict\n", op)
		default:
			t.Fatalf("%s: %v", op, err)
		}
	}
	nt, _, err := tb.UpdateBatches(ctx, []arrow.RecordBatch{ub}, mem)
	report("update", nt, err)
	ab := batchTB(t, mem, appendK(w, 0), perAppend)
	nt, err = tb.AppendBatches(ctx, []arrow.RecordBatch{ab}, mem)
	report("append", nt, err)
}

// lockedBuffer is a bytes.Buffer safe to read while a process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestConcurrentCommits: 16 processes commit at once against one table on
// S3, all from the same version: each updates the same 10 rows, then
// appends 100 rows of its own. Exactly one update commits and every other
// is refused with the typed ErrConflict; every append either commits or
// is refused with ErrConflict (it rebases over the others first). The
// final table holds every row exactly once: the base rows, the winner's
// updates of the hot rows (with their row ids), and the rows of the
// appends that committed, no others. Versions are dense and each was
// committed by exactly one process.
func TestConcurrentCommits(t *testing.T) {
	procs := 16
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	f := target(t)
	loc := f.uri("t")
	st := f.open(t, loc, s3store.Options{})
	tb, err := table.Create(ctx, st, schema, procOpts)
	require.NoError(t, err)
	tb = appendRows(t, tb, mem, 0, baseRows) // k == row id
	v0 := tb.Version()

	type child struct {
		cmd   *exec.Cmd
		in    io.WriteCloser
		out   *bufio.Reader
		lines []string
		err   lockedBuffer // written by exec's copier while we read it
	}
	children := make([]*child, procs)
	for w := range children {
		c := &child{cmd: exec.Command(os.Args[0], "-test.run=^TestCommitterChild$", "-test.count=1", "-test.timeout=5m")}
		c.cmd.Env = append(os.Environ(), envChild+"=committer", envLoc+"="+loc, fmt.Sprintf("%s=%d", envW, w))
		c.cmd.Stderr = &c.err
		c.in, err = c.cmd.StdinPipe()
		require.NoError(t, err)
		stdout, err := c.cmd.StdoutPipe()
		require.NoError(t, err)
		c.out = bufio.NewReader(stdout)
		require.NoError(t, c.cmd.Start())
		t.Cleanup(func() { _ = c.cmd.Process.Kill(); _ = c.cmd.Wait() })
		children[w] = c
	}
	readLine := func(c *child) (string, bool) {
		for {
			l, err := c.out.ReadString('\n')
			if s, ok := strings.CutPrefix(l, "SR "); ok {
				return strings.TrimSpace(s), true
			}
			_, _ = c.err.Write([]byte(l)) // go test's report of a failure goes to stdout
			if err != nil {
				return "", false
			}
		}
	}
	for w, c := range children {
		l, ok := readLine(c)
		require.True(t, ok && l == "ready", "writer %d did not get ready: %q\n%s", w, l, c.err.String())
	}
	for _, c := range children { // all at once
		_, err := io.WriteString(c.in, "go\n")
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	for _, c := range children {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				l, ok := readLine(c)
				if !ok {
					break
				}
				c.lines = append(c.lines, l)
			}
		}()
	}
	wg.Wait()

	byVersion := map[uint64]string{}
	winner, updates, conflicts := -1, 0, map[string]int{}
	var appended []int
	for w, c := range children {
		require.NoError(t, c.cmd.Wait(), "writer %d: %s", w, c.err.String())
		require.Len(t, c.lines, 2, "writer %d: %v", w, c.lines)
		for _, l := range c.lines {
			var op, what string
			var v uint64
			if _, err := fmt.Sscanf(l, "%s commit %d", &op, &v); err == nil {
				what = "commit"
			} else if _, err := fmt.Sscanf(l, "%s %s", &op, &what); err != nil || what != "conflict" {
				t.Fatalf("writer %d: %q", w, l)
			}
			if what == "conflict" {
				conflicts[op]++
				continue
			}
			require.Empty(t, byVersion[v], "version %d committed twice", v)
			byVersion[v] = fmt.Sprintf("%s by %d", op, w)
			if op == "update" {
				winner, updates = w, updates+1
			} else {
				appended = append(appended, w)
			}
		}
	}
	require.Equal(t, 1, updates, "exactly one update of the same rows from the same version commits")
	require.Equal(t, procs-1, conflicts["update"])

	// The model: base rows, the winner's hot rows, the committed appends.
	want := map[int64]int{}
	for k := int64(hotRows); k < baseRows; k++ {
		want[k] = 1
	}
	for id := range uint64(hotRows) {
		want[hotK(winner, id)] = 1
	}
	for _, w := range appended {
		for i := range perAppend {
			want[appendK(w, i)] = 1
		}
	}
	latest, err := tb.Latest(ctx)
	require.NoError(t, err)
	vs, err := table.Versions(ctx, st)
	require.NoError(t, err)
	require.Len(t, vs, int(latest.Version()), "versions are dense")
	for v := v0 + 1; v <= latest.Version(); v++ {
		if byVersion[v] == "" {
			require.Equal(t, "reserve", vs[v-1].Kind, "version %d was committed by nobody", v)
		}
	}
	got := map[int64]int{}
	sc, err := latest.Scan(ctx, table.ScanOptions{Columns: []string{"k", "s", "_rowid"}, Mem: mem})
	require.NoError(t, err)
	for sc.Next() {
		b := sc.RecordBatch()
		ks, ss, ids := b.Column(0).(*array.Int64), b.Column(1).(*array.String), b.Column(2).(*array.Uint64)
		for i := range int(b.NumRows()) {
			k := ks.Value(i)
			got[k]++
			if w := rowOf(k); w == nil {
				require.True(t, ss.IsNull(i))
			} else {
				require.Equal(t, w, ss.Value(i))
			}
			if k < baseRows {
				require.EqualValues(t, k, ids.Value(i), "a base row keeps its id")
			} else if k < 1_000_000_000 {
				require.EqualValues(t, k-hotK(winner, 0), ids.Value(i), "an updated row keeps its id")
			}
		}
	}
	require.NoError(t, sc.Err())
	sc.Release()
	require.Equal(t, want, got, "every row exactly once")
	require.EqualValues(t, len(want), latest.LiveRows())
	t.Logf("%d processes: update won by %d, %d updates refused (ErrConflict); %d appends committed, %d refused (ErrConflict); %d versions",
		procs, winner, conflicts["update"], len(appended), conflicts["append"], latest.Version()-v0)
}
