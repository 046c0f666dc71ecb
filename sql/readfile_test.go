package sql

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/fileio"
)

// fileCatalog is testCatalog with files: it records the hints read_csv
// passed and answers with a fixed sniff.
type fakeFileCatalog struct {
	fakeCatalog
	hints fileio.SniffHints
}

func (c *fakeFileCatalog) ParquetFiles(pattern string) ([]string, *arrow.Schema, error) {
	return []string{"p1.parquet", "p2.parquet"}, arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil), nil
}

func (c *fakeFileCatalog) CSVFiles(pattern string, h fileio.SniffHints) ([]string, *fileio.CSVSniff, error) {
	c.hints = h
	opt := h.Options
	opt.Format, opt.Delimiter = fileio.CSV, '|'
	return []string{pattern}, &fileio.CSVSniff{Options: opt, Names: []string{"a", "b"}, Types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}, nil
}

// TestReadCSVOptions: read_csv's named options reach the sniffer as
// hints, under DuckDB's names and aliases; a repeated, unknown or
// ill-typed option is a typed error.
func TestReadCSVOptions(t *testing.T) {
	cat := &fakeFileCatalog{fakeCatalog: testCatalog}
	_, err := Parse(`SELECT a, b FROM read_csv('x.tbl', header := false, sep := '|', quote := '', trailing_delimiter := true, nullstr := 'NA', names := ARRAY['a','b'], types := ARRAY['BIGINT','varchar'], sample_size := 10)`, cat)
	require.NoError(t, err)
	h := cat.hints
	assert.True(t, h.HeaderSet && h.DelimiterSet && h.QuoteSet && h.TrailSet)
	assert.False(t, h.Options.Header)
	assert.Equal(t, '|', h.Options.Delimiter)
	assert.True(t, h.Options.NoQuote)
	assert.True(t, h.Options.TrailingDelimiter)
	assert.Equal(t, "NA", h.Options.Null)
	assert.Equal(t, []string{"a", "b"}, h.Names)
	assert.Equal(t, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}, h.Types)
	assert.Equal(t, 10, h.SampleRows)
	_, err = Parse(`SELECT * FROM read_csv_auto('x.csv', delim := E'\t')`, cat)
	require.NoError(t, err)
	assert.Equal(t, '\t', cat.hints.Options.Delimiter)

	for sql, want := range map[string]error{
		`SELECT * FROM read_csv('x.csv', delim := ',', sep := ';')`: ErrInvalid,
		`SELECT * FROM read_csv('x.csv', header := 'maybe')`:        ErrInvalid,
		`SELECT * FROM read_csv('x.csv', types := ARRAY['json'])`:   ErrUnsupported,
		`SELECT * FROM read_csv('x.csv', compression := 'gzip')`:    ErrUnsupported,
		`SELECT * FROM read_csv('x.csv', 'y.csv')`:                  ErrInvalid,
		`SELECT * FROM read_csv(1)`:                                 ErrInvalid,
		`SELECT * FROM read_parquet('x.parquet', header := true)`:   ErrUnsupported,
	} {
		_, err := Parse(sql, cat)
		assert.ErrorIs(t, err, want, sql)
	}
	// Without a file catalog, reading files is refused by name.
	_, err = Parse(`SELECT * FROM 'x.csv'`, testCatalog)
	assert.ErrorIs(t, err, ErrUnsupported)
	assert.Contains(t, err.Error(), "read_csv")
}

// TestCopyTrailingDelimiterAndAutoDetect: COPY's stablerow options.
func TestCopyTrailingDelimiterAndAutoDetect(t *testing.T) {
	c := parseOne(t, `COPY t FROM 'x.tbl' WITH (DELIMITER '|', TRAILING_DELIMITER, AUTO_DETECT true)`).(*CopyFrom)
	assert.True(t, c.Options.TrailingDelimiter)
	assert.True(t, c.Options.DetectHeader)
	assert.Equal(t, fileio.CSV, c.Options.Format)
	_, err := Parse(`COPY t FROM 'x.csv' WITH (TRAILING_DELIMITER 'sometimes')`, testCatalog)
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = Parse(`COPY t FROM 'x.parquet' WITH (AUTO_DETECT)`, testCatalog)
	assert.ErrorIs(t, err, fileio.ErrOption)
}
