package sqltest

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestFormatValue: a record's cells are PostgreSQL's text output
// (value.Text) in the record's own spellings (NULL, "(empty)",
// true/false), and a type letter that does not match the column is an
// error, never a value printed some other way.
func TestFormatValue(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"", "ab"}, nil)
	sb.AppendNull()
	str := sb.NewArray()
	sb.Release()
	defer str.Release()
	bb := array.NewBooleanBuilder(mem)
	bb.AppendValues([]bool{true, false}, nil)
	boo := bb.NewArray()
	bb.Release()
	defer boo.Release()
	fb := array.NewFloat64Builder(mem)
	fb.Append(1234567)
	flt := fb.NewArray()
	fb.Release()
	defer flt.Release()
	db := array.NewDate32Builder(mem)
	db.Append(arrow.Date32(-1))
	date := db.NewArray()
	db.Release()
	defer date.Release()
	for _, c := range []struct {
		a    arrow.Array
		i    int
		typ  byte
		want string
	}{
		{str, 0, 'T', "(empty)"}, {str, 1, 'T', "ab"}, {str, 2, 'T', "NULL"},
		{boo, 0, 'B', "true"}, {boo, 1, 'B', "false"},
		{flt, 0, 'R', "1234567"}, {date, 0, 'T', "1969-12-31"},
	} {
		got, err := formatValue(c.a, c.i, c.typ)
		if err != nil || got != c.want {
			t.Errorf("formatValue(%s row %d, %c) = %q, %v; want %q", c.a.DataType(), c.i, c.typ, got, err, c.want)
		}
	}
	for _, c := range []struct {
		a   arrow.Array
		typ byte
	}{{flt, 'I'}, {flt, 'T'}, {str, 'B'}, {boo, 'T'}, {date, 'R'}} {
		if got, err := formatValue(c.a, 0, c.typ); err == nil {
			t.Errorf("formatValue(%s, %c) = %q, want a type mismatch", c.a.DataType(), c.typ, got)
		}
	}
}
