package exec

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// pullCoalesced drives a per-batch transform whose output goes into co:
// states are pull input -> transform (push) -> pop full batches -> at input
// EOF flush the remainder -> EOF.
func pullCoalesced(ctx context.Context, in Stream, co *Coalescer, eof *bool, m *Metrics, f func(arrow.RecordBatch) error) (arrow.RecordBatch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b, ok := co.Pop(); ok {
			return m.Emit(b, time.Now())
		}
		if *eof {
			return nil, io.EOF
		}
		b, err := in.Next(ctx)
		if errors.Is(err, io.EOF) {
			*eof = true
			if err := co.Finish(); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		start := time.Now()
		err = f(b)
		b.Release()
		m.Since(start)
		if err != nil {
			return nil, err
		}
	}
}
