package table

import "testing"

// fakeFile is a DataFileInfo that passes manifest validation for a
// fragment of rows rows in batches of batchRows, for manifests built by
// hand (no data file is read).
func fakeFile(rows, batchRows uint64) DataFileInfo {
	fi := DataFileInfo{}
	for i := range batchCount(rows, batchRows) {
		fi.Spans = append(fi.Spans, Span{End: 100 * (i + 1)})
	}
	fi.Size = fi.tailStart() + 100
	return fi
}

// BenchmarkSpanCRC is the hashing a cold read adds per batch: one CRC32C
// over a 4096-row batch of two 8-byte columns (the bench table's shape).
func BenchmarkSpanCRC(b *testing.B) {
	buf := make([]byte, 4096*16+256)
	for i := range buf {
		buf[i] = byte(i * 31)
	}
	b.SetBytes(int64(len(buf)))
	for range b.N {
		_ = crc32c(buf)
	}
}
