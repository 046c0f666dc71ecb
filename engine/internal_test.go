package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
)

// panicStream panics in Next, standing for a bug in an operator.
type panicStream struct{ closed bool }

func (s *panicStream) Schema() *arrow.Schema { return arrow.NewSchema(nil, nil) }
func (s *panicStream) Next(context.Context) (arrow.RecordBatch, error) {
	var m map[string]int
	m["secret user value"]++ // assignment to a nil map
	return nil, nil
}
func (s *panicStream) Close() error { s.closed = true; return nil }

// panicNode is a plan whose stream panics.
type panicNode struct{ st *panicStream }

func (n panicNode) Name() string                { return "Panic" }
func (n panicNode) Schema() *arrow.Schema       { return arrow.NewSchema(nil, nil) }
func (n panicNode) Children() []exec.Node       { return nil }
func (n panicNode) Properties() exec.Properties { return exec.Properties{} }
func (n panicNode) String() string              { return "Panic" }
func (n panicNode) Metrics() *exec.Metrics      { return &exec.Metrics{} }
func (n panicNode) Execute(context.Context, *exec.TaskContext) (exec.Stream, error) {
	return n.st, nil
}

// TestRowsPanicIsInternalError: a panic in an operator ends the stream with
// an *InternalError matching errkind.Internal whose message says nothing of
// the panic (that is for debug output), and the stream is closed.
func TestRowsPanicIsInternalError(t *testing.T) {
	st := &panicStream{}
	rows := newStreamRows(context.Background(), panicNode{st}, st)
	require.False(t, rows.Next())
	err := rows.Err()
	require.Error(t, err)
	require.True(t, errors.Is(err, errkind.Internal), "%v", err)
	require.True(t, errors.Is(err, ErrInternal))
	var ie *InternalError
	require.True(t, errors.As(err, &ie))
	require.NotContains(t, err.Error(), "nil map")
	require.Contains(t, ie.Debug(), "assignment to entry in nil map")
	require.Contains(t, ie.Debug(), "panicStream")
	require.True(t, st.closed)
	require.Equal(t, err, rows.Close())
}

// TestRecoverInternal: the recovery every entry point defers.
func TestRecoverInternal(t *testing.T) {
	err := func() (err error) {
		defer recoverInternal(&err)
		panic("boom")
	}()
	require.True(t, errors.Is(err, errkind.Internal))
	require.False(t, strings.Contains(err.Error(), "boom"))
}
