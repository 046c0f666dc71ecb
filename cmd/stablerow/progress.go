package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/stablerow/stablerow/progress"
)

// A statement that runs longer than progressAfter shows, on a terminal,
// one line of progress on standard error, redrawn every progressEvery and
// erased before the statement prints anything: rows read of the rows its
// scans will read, rows written, time. It is what INSERT ... SELECT, COPY,
// CREATE INDEX, CLUSTER and VACUUM FULL do (they scan and write tables);
// a long SELECT shows its scans until its first row prints. Off a
// terminal nothing is drawn: a log or a pipe gets only results.
//
// STABLEROW_PROGRESS_AFTER (a Go duration) moves the delay, for tests
// that cannot make a statement last a second on every machine.
var (
	progressAfter = durationEnv("STABLEROW_PROGRESS_AFTER", time.Second)
	progressEvery = 100 * time.Millisecond
)

func durationEnv(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d >= 0 {
		return d
	}
	return def
}

// progressLine draws one statement's meter.
//
//	start --progressAfter--> drawing --every progressEvery--> redraw
//	   \                        |
//	    +---- stop ------------+--> erased (if drawn), done
type progressLine struct {
	m     *progress.Meter
	w     io.Writer
	start time.Time
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	drawn bool // owned by run until done is closed
}

// startProgress returns ctx carrying a new meter and the line drawing it
// on w; on no terminal (w == nil) it returns ctx and a line whose stop
// does nothing.
func startProgress(ctx context.Context, w io.Writer) (context.Context, *progressLine) {
	if w == nil {
		return ctx, nil
	}
	p := &progressLine{m: &progress.Meter{}, w: w, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return progress.With(ctx, p.m), p
}

func (p *progressLine) run() {
	defer close(p.done)
	wait := time.NewTimer(progressAfter)
	defer wait.Stop()
	select {
	case <-p.stop:
		return
	case <-wait.C:
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		fmt.Fprintf(p.w, "\r\033[K%s", progressText(p.m.Counts(), time.Since(p.start)))
		p.drawn = true
		select {
		case <-p.stop:
			fmt.Fprint(p.w, "\r\033[K") // the output starts on a clean line
			return
		case <-tick.C:
		}
	}
}

// Stop ends the drawing and erases the line; it returns once the line is
// gone, so what the caller prints next is not overwritten. Safe to call
// more than once, and on nil.
func (p *progressLine) Stop() {
	if p == nil {
		return
	}
	p.once.Do(func() { close(p.stop) })
	<-p.done
}

// progressText is the line for counts c after d.
func progressText(c progress.Counts, d time.Duration) string {
	s := ""
	switch {
	case c.ToRead > 0:
		s = fmt.Sprintf("%s of %s rows read (%d%%)", grouped(c.Read), grouped(c.ToRead), c.Read*100/c.ToRead)
	case c.Written == 0:
		s = "running"
	}
	if c.Written > 0 {
		if s != "" {
			s += ", "
		}
		s += grouped(c.Written) + " rows written"
	}
	return fmt.Sprintf("%s, %.1f s", s, d.Seconds())
}

// grouped writes n with thousands separators, as the counts are read at a
// glance: 12,345,678.
func grouped(n int64) string {
	s := fmt.Sprint(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// stopOnWrite is a writer that stops a progress line before its first
// write passes through.
type stopOnWrite struct {
	w io.Writer
	p *progressLine
}

func (s stopOnWrite) Write(b []byte) (int, error) {
	s.p.Stop()
	return s.w.Write(b)
}
