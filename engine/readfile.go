package engine

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/fileio"
)

// ParquetFiles expands pattern under the statement's file policy (every
// match checked by it) and reads the files' engine schema from their
// footers: read_parquet at plan time (sql.FileCatalog). The files of a
// glob must have the same columns, names and types in order: one read
// gives one schema.
func (c *catalog) ParquetFiles(pattern string) ([]string, *arrow.Schema, error) {
	p := c.db.files(c.ctx)
	files, err := p.Glob(pattern)
	if err != nil {
		return nil, nil, err
	}
	var first *arrow.Schema
	for _, name := range files {
		s, err := parquetSchema(p, name)
		if err != nil {
			return nil, nil, err
		}
		if first == nil {
			first = s
			continue
		}
		if !s.Equal(first) {
			return nil, nil, fmt.Errorf("%w: %s has columns (%s) but %s has (%s) (the files of one glob must have the same columns)", fileio.ErrSchema, name, columnsText(s), files[0], columnsText(first))
		}
	}
	return files, first, nil
}

func parquetSchema(p fileio.Policy, name string) (*arrow.Schema, error) {
	f, err := p.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := fileio.ParquetSchema(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// columnsText renders a schema's columns as "name type, ..." for errors.
func columnsText(s *arrow.Schema) string {
	out := ""
	for i, f := range s.Fields() {
		if i > 0 {
			out += ", "
		}
		out += f.Name + " " + f.Type.String()
	}
	return out
}

// CSVFiles expands pattern under the statement's file policy and sniffs
// the first file (fileio.SniffCSV); every other file must agree with it
// (its header, or its field count): read_csv at plan time.
func (c *catalog) CSVFiles(pattern string, h fileio.SniffHints) ([]string, *fileio.CSVSniff, error) {
	p := c.db.files(c.ctx)
	files, err := p.Glob(pattern)
	if err != nil {
		return nil, nil, err
	}
	f, err := p.Open(files[0])
	if err != nil {
		return nil, nil, err
	}
	sn, err := fileio.SniffCSV(f, files[0], h)
	f.Close()
	if err != nil {
		return nil, nil, err
	}
	for _, name := range files[1:] {
		f, err := p.Open(name)
		if err != nil {
			return nil, nil, err
		}
		err = sn.Agrees(f, name, files[0])
		f.Close()
		if err != nil {
			return nil, nil, err
		}
	}
	return files, sn, nil
}
