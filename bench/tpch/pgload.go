package tpch

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// WritePGLoad writes the generator's tables for PostgreSQL's COPY into
// dir: load.sql (each table's CREATE TABLE with the specification's
// column types, DDLSpec, then a COPY from the table's file) and
// <table>.tsv, each value in PostgreSQL's text form (value.Text, the
// form answers are compared in). It lets PostgreSQL answer the suite's
// SQL over the very data the engine reads (TestProducersTPCH's goldens,
// made by plan/testdata/producers/tpch-pg/answers.sh).
func (g *Generator) WritePGLoad(ctx context.Context, dir string) error {
	files := map[string]*os.File{}
	bufs := map[string]*bufio.Writer{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	var load strings.Builder
	for _, t := range Tables {
		f, err := os.Create(filepath.Join(dir, t.Name+".tsv"))
		if err != nil {
			return err
		}
		files[t.Name], bufs[t.Name] = f, bufio.NewWriter(f)
		fmt.Fprintf(&load, "%s;\n\\copy %s from '%s.tsv'\n", CreateDDL(DDLSpec, t.Name, t.Schema), t.Name, t.Name)
	}
	err := g.Generate(ctx, func(table string, b arrow.RecordBatch) error {
		w := bufs[table]
		a := &Answer{}
		if err := a.appendArrow(b); err != nil {
			return err
		}
		for _, r := range a.Rows {
			for i, v := range r {
				if strings.ContainsAny(v, "\t\n\\") {
					return fmt.Errorf("%s: a value with a tab, newline or backslash: %q", table, v)
				}
				if i > 0 {
					w.WriteByte('\t')
				}
				w.WriteString(v)
			}
			w.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		return err
	}
	for name, w := range bufs {
		if err := w.Flush(); err != nil {
			return err
		}
		if err := files[name].Close(); err != nil {
			return err
		}
		delete(files, name)
	}
	return os.WriteFile(filepath.Join(dir, "load.sql"), []byte(load.String()), 0o644)
}
