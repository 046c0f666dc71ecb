package exec

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// LimitExec skips Offset rows then emits at most Limit rows (Limit < 0: no limit).
type LimitExec struct {
	input         Node
	offset, limit int64
	metrics       Metrics
}

func NewLimitExec(input Node, offset, limit int64) *LimitExec {
	return &LimitExec{input: input, offset: max(offset, 0), limit: limit}
}

func (l *LimitExec) Name() string           { return "LimitExec" }
func (l *LimitExec) Schema() *arrow.Schema  { return l.input.Schema() }
func (l *LimitExec) Children() []Node       { return []Node{l.input} }
func (l *LimitExec) Properties() Properties { return l.input.Properties() }
func (l *LimitExec) Metrics() *Metrics      { return &l.metrics }
func (l *LimitExec) String() string {
	return fmt.Sprintf("LimitExec: offset=%d limit=%d", l.offset, l.limit)
}

func (l *LimitExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	in, err := l.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &limitStream{n: l, in: in, skip: l.offset, left: l.limit}, nil
}

type limitStream struct {
	n          *LimitExec
	in         Stream
	skip, left int64
}

func (s *limitStream) Schema() *arrow.Schema { return s.n.Schema() }
func (s *limitStream) Close() error          { return s.in.Close() }

func (s *limitStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if s.left == 0 {
			return nil, io.EOF // input is not pulled further once the limit is met
		}
		b, err := s.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		n := b.NumRows()
		if s.skip >= n {
			s.skip -= n
			b.Release()
			continue
		}
		lo, hi := s.skip, n
		s.skip = 0
		if s.left > 0 && hi-lo > s.left {
			hi = lo + s.left
		}
		if s.left > 0 {
			s.left -= hi - lo
		}
		if lo == 0 && hi == n {
			return s.n.metrics.Emit(b, start)
		}
		out := b.NewSlice(lo, hi)
		b.Release()
		return s.n.metrics.Emit(out, start)
	}
}
