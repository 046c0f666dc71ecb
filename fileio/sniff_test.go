package fileio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
)

func sniff(t *testing.T, data string, h SniffHints) *CSVSniff {
	t.Helper()
	s, err := SniffCSV(strings.NewReader(data), "f.csv", h)
	require.NoError(t, err)
	return s
}

func typeNames(ts []arrow.DataType) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}

// readSniffed reads data with the sniffer's answer, as read_csv does.
func readSniffed(t *testing.T, data string, s *CSVSniff) (string, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r, err := NewCSVReader(strings.NewReader(data), s.Schema(), s.Options, mem, 2)
	require.NoError(t, err)
	defer r.Close()
	var bs []arrow.RecordBatch
	defer func() { release(bs) }()
	for {
		b, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return rowsText(bs), nil
		}
		if err != nil {
			return "", err
		}
		bs = append(bs, b)
	}
}

func TestSniffDelimiters(t *testing.T) {
	for _, d := range []string{",", "|", ";", "\t"} {
		data := strings.ReplaceAll("a,b,c\n1,x y,2.5\n2,z,3\n", ",", d)
		s := sniff(t, data, SniffHints{})
		assert.Equal(t, rune(d[0]), s.Options.Delimiter, "delimiter %q", d)
		assert.Equal(t, []string{"a", "b", "c"}, s.Names)
		assert.Equal(t, []string{"int64", "utf8", "float64"}, typeNames(s.Types))
		assert.True(t, s.Options.Header)
	}
}

func TestSniffTypes(t *testing.T) {
	data := "i,f,d,b,s,n\n1,1,2024-01-31,true,x,\n-7,2.5e3,1999-12-31,FALSE,2024-01-01,\n,,,,,\n"
	s := sniff(t, data, SniffHints{})
	assert.Equal(t, []string{"int64", "float64", "date32", "bool", "utf8", "utf8"}, typeNames(s.Types))
	got, err := readSniffed(t, data, s)
	require.NoError(t, err)
	assert.Equal(t, "1|1|2024-01-31|t|x|<null>|\n-7|2500|1999-12-31|f|2024-01-01|<null>|\n<null>|<null>|<null>|<null>|<null>|<null>|\n", got)
}

// A boolean column is true/false only: 0 and 1 are numbers.
func TestSniffZeroOneIsBigint(t *testing.T) {
	s := sniff(t, "flag\n0\n1\n", SniffHints{})
	assert.Equal(t, []string{"int64"}, typeNames(s.Types))
}

func TestSniffHeader(t *testing.T) {
	// Typed columns: a first row that does not fit is the header.
	s := sniff(t, "1,2\n3,4\n", SniffHints{})
	assert.False(t, s.Options.Header)
	assert.Equal(t, []string{"column0", "column1"}, s.Names)
	// All text: DuckDB's rule, a header is assumed.
	s = sniff(t, "x,y\na,b\n", SniffHints{})
	assert.True(t, s.Options.Header)
	assert.Equal(t, []string{"x", "y"}, s.Names)
	// header := false keeps the first row as data.
	s = sniff(t, "x,y\na,b\n", SniffHints{HeaderSet: true})
	assert.False(t, s.Options.Header)
	// Empty and repeated names.
	s = sniff(t, "a,,a\n1,2,3\n", SniffHints{})
	assert.Equal(t, []string{"a", "column1", "a_1"}, s.Names)
}

func TestSniffQuoting(t *testing.T) {
	s := sniff(t, "id,name\n1,\"pear, big\"\n2,\"say \"\"hi\"\"\"\n", SniffHints{})
	assert.Equal(t, ',', s.Options.Delimiter)
	assert.False(t, s.Options.NoQuote)
	assert.Equal(t, '"', s.Options.Quote)
	got, err := readSniffed(t, "id,name\n1,\"pear, big\"\n2,\"say \"\"hi\"\"\"\n", s)
	require.NoError(t, err)
	assert.Equal(t, "1|pear, big|\n2|say \"hi\"|\n", got)
	// Stray quotes inside fields: no quoting reads them as data.
	data := "id|len\n1|5\" pipe\n2|O'Brien\n"
	s = sniff(t, data, SniffHints{})
	assert.Equal(t, '|', s.Options.Delimiter)
	assert.True(t, s.Options.NoQuote)
	got, err = readSniffed(t, data, s)
	require.NoError(t, err)
	assert.Equal(t, "1|5\" pipe|\n2|O'Brien|\n", got)
	// Single quotes quote when they must.
	data = "a;b\n1;'x;y'\n2;'z'\n"
	s = sniff(t, data, SniffHints{})
	assert.Equal(t, ';', s.Options.Delimiter)
	assert.Equal(t, '\'', s.Options.Quote)
	assert.Equal(t, 2, len(s.Names))
}

// TPC-H dbgen's .tbl lines end with '|': the empty field after it is no
// column.
func TestSniffTrailingDelimiter(t *testing.T) {
	data := "1|Customer#000000001|IVhzIApeRb ot,c,E|15|25-989-741-2988|711.56|BUILDING|to the even, regular platelets. regular|\n" +
		"2|Customer#000000002|XSTf4,NCwDVaWNe6tEgvwfmRchLXak|13|23-768-687-3665|121.65|AUTOMOBILE|l accounts. blithely ironic|\n"
	s := sniff(t, data, SniffHints{})
	assert.Equal(t, '|', s.Options.Delimiter)
	assert.True(t, s.Options.TrailingDelimiter)
	assert.False(t, s.Options.Header)
	assert.Equal(t, []string{"int64", "utf8", "utf8", "int64", "utf8", "float64", "utf8", "utf8"}, typeNames(s.Types))
	got, err := readSniffed(t, data, s)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(got, "\n"))
	assert.True(t, strings.HasPrefix(got, "1|Customer#000000001|IVhzIApeRb ot,c,E|15|"), got)
	// trailing_delimiter := false keeps the empty column.
	s = sniff(t, data, SniffHints{TrailSet: true})
	assert.Len(t, s.Names, 9)
}

// A row past the sample that does not fit its column's type is a typed
// error naming the line and the column, never a wrong value.
func TestSniffLaterRowDoesNotFit(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,v\n")
	for i := 0; i < 50; i++ {
		b.WriteString("1,2\n")
	}
	b.WriteString("3,oops\n")
	s := sniff(t, b.String(), SniffHints{SampleRows: 10})
	assert.Equal(t, []string{"int64", "int64"}, typeNames(s.Types))
	_, err := readSniffed(t, b.String(), s)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrFormat)
	assert.Contains(t, err.Error(), `line 52, column "v"`)
}

func TestSniffOverrides(t *testing.T) {
	s := sniff(t, "1|2\n3|4\n", SniffHints{
		Names: []string{"a", "b"},
		Types: []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64},
	})
	assert.Equal(t, []string{"a", "b"}, s.Names)
	assert.Equal(t, []string{"utf8", "float64"}, typeNames(s.Types))
	_, err := SniffCSV(strings.NewReader("1|2\n"), "f.csv", SniffHints{Names: []string{"a"}})
	assert.ErrorIs(t, err, ErrOption)
	h := SniffHints{DelimiterSet: true, HeaderSet: true}
	h.Options.Delimiter, h.Options.Header = ';', true
	s = sniff(t, "a,b;c\n1,2;3\n", h)
	assert.Equal(t, []string{"a,b", "c"}, s.Names)
}

func TestSniffEmptyFile(t *testing.T) {
	_, err := SniffCSV(strings.NewReader(""), "e.csv", SniffHints{})
	assert.ErrorIs(t, err, ErrFormat)
	assert.Contains(t, err.Error(), "e.csv")
}

func TestSniffAgrees(t *testing.T) {
	s := sniff(t, "a,b\n1,2\n", SniffHints{})
	assert.NoError(t, s.Agrees(strings.NewReader("a,b\n5,6\n"), "2.csv", "1.csv"))
	err := s.Agrees(strings.NewReader("a,c\n5,6\n"), "2.csv", "1.csv")
	assert.ErrorIs(t, err, ErrSchema)
	assert.Contains(t, err.Error(), `"c"`)
	assert.ErrorIs(t, s.Agrees(strings.NewReader("5,6,7\n"), "3.csv", "1.csv"), ErrSchema)
}

// FuzzSniffCSV sniffs arbitrary bytes: the sniffer returns typed errors,
// never panics, names every column once, and the types it detects from a
// whole file read that file: a value can fail only for a row whose field
// count is not the columns', never for its type.
func FuzzSniffCSV(f *testing.F) {
	f.Add([]byte("a,b\n1,2\n"))
	f.Add([]byte("1|x|2.5|\n2|y|3|\n"))
	f.Add([]byte("a;b\n'x;y';1\n"))
	f.Add([]byte("d\tb\n2024-01-01\ttrue\n\n"))
	f.Add([]byte("\"a\nb\",c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := SniffCSV(bytes.NewReader(data), "f.csv", SniffHints{})
		if err != nil {
			if errkind.Of(err) == nil {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if len(s.Names) == 0 || len(s.Names) != len(s.Types) {
			t.Fatalf("names %v types %v", s.Names, s.Types)
		}
		seen := map[string]bool{}
		for _, n := range s.Names {
			if seen[n] {
				t.Fatalf("column %q named twice: %v", n, s.Names)
			}
			seen[n] = true
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		r, err := NewCSVReader(bytes.NewReader(data), s.Schema(), s.Options, mem, 3)
		if err != nil {
			t.Fatalf("the sniffed options do not open a reader: %v", err)
		}
		defer r.Close()
		for {
			b, err := r.Next(context.Background())
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if errkind.Of(err) == nil {
					t.Fatalf("untyped error: %v", err)
				}
				if strings.Contains(err.Error(), "invalid input syntax") || strings.Contains(err.Error(), "out of range") {
					t.Fatalf("a sniffed type does not read the file it came from: %v", err)
				}
				return
			}
			b.Release()
		}
	})
}
