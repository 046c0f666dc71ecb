package sql

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/errkind"
)

// catalogFunc is a Catalog made of a function.
type catalogFunc func(name string) (*arrow.Schema, error)

func (f catalogFunc) TableSchema(name string) (*arrow.Schema, error) { return f(name) }

// TestCatalogErrorKeepsKind: a corrupt table met while lowering keeps its
// kind and identity through Parse.
func TestCatalogErrorKeepsKind(t *testing.T) {
	corrupt := errkind.New(errkind.Corrupt, "table: corrupt manifest")
	cat := catalogFunc(func(string) (*arrow.Schema, error) { return nil, fmt.Errorf("v3: %w", corrupt) })
	for _, q := range []string{"SELECT * FROM t", "INSERT INTO t VALUES (1)", "DELETE FROM t", "UPDATE t SET a = 1"} {
		_, err := Parse(q, cat)
		if !errors.Is(err, errkind.Corrupt) || !errors.Is(err, corrupt) {
			t.Fatalf("%s: %v lost its kind", q, err)
		}
	}
}

// TestPanicIsInternal: a panic while lowering (here in the catalog)
// becomes ErrInternal, matching errkind.Internal, with the panic's text
// only in the debug log.
func TestPanicIsInternal(t *testing.T) {
	var log bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(old)
	cat := catalogFunc(func(string) (*arrow.Schema, error) { panic("secret detail 0xdeadbeef") })
	_, err := Parse("SELECT * FROM t", cat)
	if !errors.Is(err, ErrInternal) || !errors.Is(err, errkind.Internal) {
		t.Fatalf("%v is not internal", err)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Fatalf("panic text in the message: %v", err)
	}
	if !strings.Contains(log.String(), "secret detail 0xdeadbeef") {
		t.Fatalf("debug log lacks the panic:\n%s", log.String())
	}
}
