package plan_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
)

// errCorruptTable stands for a table package's corruption sentinel.
var errCorruptTable = errkind.New(errkind.Corrupt, "table: corrupt data file")

// failingCatalog wraps a catalog and fails (or panics) where told.
type failingCatalog struct {
	c     *testCatalog
	table func() error // Table's error; panics when it returns nil and panicTable
	scan  error
	take  error
	panic string
}

func (f failingCatalog) Table(name string) (plan.TableProvider, error) {
	if f.panic != "" {
		panic(f.panic)
	}
	if f.table != nil {
		return nil, f.table()
	}
	p, err := f.c.Table(name)
	if err != nil {
		return nil, err
	}
	return failingProvider{TableProvider: p, f: f}, nil
}

type failingProvider struct {
	plan.TableProvider
	f failingCatalog
}

func (p failingProvider) Scan(columns []int) (exec.Node, error) {
	if p.f.scan != nil {
		return nil, p.f.scan
	}
	return p.TableProvider.Scan(columns)
}

func (p failingProvider) TakeByKey(d exec.Node, dk, kc int, cols []int) (exec.Node, bool, error) {
	if p.f.take != nil {
		return nil, false, p.f.take
	}
	return p.TableProvider.TakeByKey(d, dk, kc, cols)
}

// TestBuildKeepsErrorKinds: a corrupt table met while planning (opening
// it, scanning it, probing its index) comes out of Build still matching
// errkind.Corrupt and the table's own sentinel.
func TestBuildKeepsErrorKinds(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	seed := seedPlan(t, c, false)
	corrupt := fmt.Errorf("fragment 3: %w", errCorruptTable)
	for name, f := range map[string]failingCatalog{
		"table": {c: c, table: func() error { return corrupt }},
		"take":  {c: c, take: corrupt},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := plan.Build(context.Background(), seed, f, plan.Options{})
			if !errors.Is(err, errkind.Corrupt) || !errors.Is(err, errCorruptTable) {
				t.Fatalf("%v lost its kind", err)
			}
		})
	}
	t.Run("scan", func(t *testing.T) {
		f := failingCatalog{c: c, scan: corrupt}
		_, err := plan.Build(context.Background(), seed, f, plan.Options{DisableIndexes: true})
		if !errors.Is(err, errkind.Corrupt) || !errors.Is(err, errCorruptTable) {
			t.Fatalf("%v lost its kind", err)
		}
	})
}

// TestBuildPanicIsInternal: a panic while planning (here in a catalog)
// becomes an error matching errkind.Internal whose message does not carry
// the panic's text.
func TestBuildPanicIsInternal(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	f := failingCatalog{c: c, panic: "secret detail 0xdeadbeef"}
	_, err := plan.Build(context.Background(), seedPlan(t, c, false), f, plan.Options{})
	if !errors.Is(err, errkind.Internal) || !errors.Is(err, plan.ErrInternal) {
		t.Fatalf("%v is not internal", err)
	}
	if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "deadbeef") {
		t.Fatalf("panic text in the message: %v", err)
	}
}
