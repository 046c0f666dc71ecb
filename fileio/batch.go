package fileio

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

func newBatch(s *arrow.Schema, cols []arrow.Array, n int64) arrow.RecordBatch {
	return array.NewRecordBatch(s, cols, n)
}
