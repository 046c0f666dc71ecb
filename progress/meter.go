package progress

import (
	"context"
	"sync/atomic"
)

// Meter is the running count of one statement's work. All methods are
// safe for concurrent use (the partitions of a parallel scan share it)
// and do nothing on a nil Meter, so a producer never checks for one.
type Meter struct {
	toRead, read, written atomic.Int64
}

// Counts is a Meter read at one moment.
type Counts struct {
	// ToRead is the rows the scans started so far will read (grows as
	// scans start); Read is those read.
	ToRead, Read int64
	// Written is the rows written to new data files.
	Written int64
}

type key struct{}

// With returns ctx carrying m.
func With(ctx context.Context, m *Meter) context.Context { return context.WithValue(ctx, key{}, m) }

// From returns the Meter ctx carries, or nil.
func From(ctx context.Context) *Meter {
	m, _ := ctx.Value(key{}).(*Meter)
	return m
}

// WillRead adds n rows to what the statement's scans will read.
func (m *Meter) WillRead(n int64) {
	if m != nil {
		m.toRead.Add(n)
	}
}

// Read adds n rows read.
func (m *Meter) Read(n int64) {
	if m != nil {
		m.read.Add(n)
	}
}

// Wrote adds n rows written.
func (m *Meter) Wrote(n int64) {
	if m != nil {
		m.written.Add(n)
	}
}

// Counts reads the meter.
func (m *Meter) Counts() Counts {
	if m == nil {
		return Counts{}
	}
	return Counts{ToRead: m.toRead.Load(), Read: m.read.Load(), Written: m.written.Load()}
}
