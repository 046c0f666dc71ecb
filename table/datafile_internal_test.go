package table

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
