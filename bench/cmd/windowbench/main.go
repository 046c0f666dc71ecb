package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		fs := flag.NewFlagSet("child", flag.ExitOnError)
		eng := fs.String("engine", "", "")
		dir := fs.String("dir", "", "")
		q := fs.Int("q", 0, "")
		threads := fs.Int("threads", 2, "")
		mem := fs.String("mem", "", "")
		fs.Parse(os.Args[2:])
		if err := child(*eng, *dir, *q, *threads, *mem, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "windowbench child:", err)
			os.Exit(1)
		}
		return
	}
	fs := flag.NewFlagSet("windowbench", flag.ExitOnError)
	c := config{}
	fs.IntVar(&c.rows, "rows", 10_000_000, "rows of the table")
	fs.StringVar(&c.dir, "dir", "windowbench-data", "directory of both databases (built when missing, then reused)")
	fs.IntVar(&c.reps, "reps", 5, "runs per query and engine, the engines alternated")
	fs.IntVar(&c.threads, "threads", 2, "threads of both engines")
	fs.StringVar(&c.mem, "mem", "1GB", "memory limit of both engines (SET memory_limit)")
	out := fs.String("out", "", "write the Markdown report here too")
	fs.Parse(os.Args[1:])
	if err := c.main(context.Background(), os.Stdout, *out); err != nil {
		fmt.Fprintln(os.Stderr, "windowbench:", err)
		os.Exit(1)
	}
}

type config struct {
	rows, reps, threads int
	dir, mem            string
}

// sample is one child's run with its process's CPU time (getrusage) and
// peak RSS (the child's VmHWM).
type sample struct {
	run
	cpu    time.Duration
	rssKiB int64
}

func (c config) main(ctx context.Context, stdout io.Writer, out string) error {
	dir := filepath.Join(c.dir, strconv.Itoa(c.rows))
	for _, e := range []string{engineSrow, engineDuck} {
		if err := c.build(ctx, e, dir); err != nil {
			return err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	rep := report{config: c}
	for qi, q := range queries() {
		res := map[string][]sample{}
		for r := range c.reps {
			order := []string{engineSrow, engineDuck}
			if r%2 == 1 {
				slices.Reverse(order)
			}
			for _, e := range order {
				s, err := c.spawn(ctx, self, e, dir, qi)
				if err != nil {
					return err
				}
				res[e] = append(res[e], s)
			}
		}
		rep.add(q, res)
		fmt.Fprintf(os.Stderr, "%s done\n", q.name)
	}
	var b bytes.Buffer
	rep.markdown(&b)
	stdout.Write(b.Bytes())
	if out != "" {
		return os.WriteFile(out, b.Bytes(), 0o644)
	}
	return nil
}

// build makes the engine's database under dir unless a finished one is
// there (a marker file written last).
func (c config) build(ctx context.Context, e, dir string) error {
	done := filepath.Join(dir, e+".done")
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// A build cut short left its engine's files without the marker.
	if e == engineSrow {
		os.RemoveAll(filepath.Join(dir, "srow"))
	} else {
		os.Remove(filepath.Join(dir, "duck.db"))
	}
	start := time.Now()
	s, err := open(e, dir, true, c.threads, "")
	if err != nil {
		return err
	}
	defer s.close()
	for _, q := range loadSQL(e, c.rows) {
		if err := s.exec(ctx, q); err != nil {
			return fmt.Errorf("%s: build: %w", e, err)
		}
	}
	fmt.Fprintf(os.Stderr, "%s: built %d rows in %s\n", e, c.rows, time.Since(start).Round(time.Millisecond))
	return os.WriteFile(done, nil, 0o644)
}

// spawn runs one query in a child process and reads its run and usage.
func (c config) spawn(ctx context.Context, self, e, dir string, qi int) (sample, error) {
	cmd := exec.CommandContext(ctx, self, "child", "-engine", e, "-dir", dir, "-q", strconv.Itoa(qi),
		"-threads", strconv.Itoa(c.threads), "-mem", c.mem)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%s query %d: %w: %s", e, qi, err, stderr.String())
	}
	var s sample
	if err := json.Unmarshal(stdout.Bytes(), &s.run); err != nil {
		return sample{}, fmt.Errorf("%s query %d: %w", e, qi, err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	s.rssKiB = s.HWMKiB
	return s, nil
}
