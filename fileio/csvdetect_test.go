package fileio

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readWith(t *testing.T, data string, schema *arrow.Schema, opt Options) []arrow.RecordBatch {
	t.Helper()
	r, err := NewCSVReader(strings.NewReader(data), schema, opt, memory.NewGoAllocator(), 4)
	require.NoError(t, err)
	return drain(t, r)
}

// TestCSVDetectHeader: COPY's AUTO_DETECT skips a first line that does
// not read as the columns' types, keeps one that does, and for an
// all-text table skips only the column names; it also notices a
// trailing delimiter.
func TestCSVDetectHeader(t *testing.T) {
	opt := Options{DetectHeader: true}
	assert.Equal(t, "1|1.5|x|t|\n", rowsText(readWith(t, "k,f,s,b\n1,1.5,x,t\n", testSchema, opt)))
	assert.Equal(t, "7|2|y|f|\n1|1.5|x|t|\n", rowsText(readWith(t, "7,2,y,f\n1,1.5,x,t\n", testSchema, opt)))
	text := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	assert.Equal(t, "x|y|\n", rowsText(readWith(t, "A,b\nx,y\n", text, opt)))
	assert.Equal(t, "p|q|\nx|y|\n", rowsText(readWith(t, "p,q\nx,y\n", text, opt)))
	assert.Equal(t, "p|q|\nx|y|\n", rowsText(readWith(t, "p,q,\nx,y,\n", text, opt)))
	assert.Equal(t, "", rowsText(readWith(t, "", text, opt)))
}

// TestCSVTrailingDelimiter: the empty field after a trailing delimiter is
// dropped; a line without one still reads; one more field is an error.
func TestCSVTrailingDelimiter(t *testing.T) {
	opt := Options{Delimiter: '|', TrailingDelimiter: true}
	assert.Equal(t, "1|2|x|t|\n3|4|y|f|\n", rowsText(readWith(t, "1|2|x|t|\n3|4|y|f\n", testSchema, opt)))
	assert.Nil(t, readWith(t, "1|2|x|t|z|\n", testSchema, opt))
	// A line without it whose last column is empty keeps that column.
	assert.Equal(t, "1|2|x|<null>|\n", rowsText(readWith(t, "1|2|x|\n", testSchema, opt)))
	opt.TrailingDelimiter = false
	assert.Nil(t, readWith(t, "1|2|x|t|\n", testSchema, opt))
}
