package ingest

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/errkind"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// TestDecoderPanic: substrait-go panics decoding a root without an input
// (Build rejects that shape before; other malformed plans reach it). The
// error is a bad plan and an internal failure, its message carries no
// panic text, and the panic with its stack goes to the debug log.
func TestDecoderPanic(t *testing.T) {
	var log bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(old)
	p := &substraitpb.Plan{Relations: []*substraitpb.PlanRel{{RelType: &substraitpb.PlanRel_Root{Root: &substraitpb.RelRoot{}}}}}
	_, err := Read(p)
	if !errors.Is(err, ErrInvalidPlan) || !errors.Is(err, errkind.Internal) {
		t.Fatalf("%v: want ErrInvalidPlan and errkind.Internal", err)
	}
	if strings.Contains(err.Error(), "runtime error") || strings.Contains(err.Error(), "nil pointer") {
		t.Fatalf("panic text in the message: %v", err)
	}
	if !strings.Contains(log.String(), "nil pointer") || !strings.Contains(log.String(), "goroutine") {
		t.Fatalf("debug log lacks the panic and stack:\n%s", log.String())
	}
}
