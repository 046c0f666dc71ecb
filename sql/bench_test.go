package sql

import (
	"strconv"
	"strings"
	"testing"
)

// BenchmarkParseSeed measures parse + lowering + proto encoding of the
// seed take query (cgo parser included).
func BenchmarkParseSeed(b *testing.B) {
	const q = `SELECT v.ord, t._rowaddr FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`
	for b.Loop() {
		if _, err := Parse(q, testCatalog); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseInsert measures a 100-row INSERT ... VALUES.
func BenchmarkParseInsert(b *testing.B) {
	q := "INSERT INTO t VALUES "
	for i := range 100 {
		if i > 0 {
			q += ", "
		}
		q += "(1, 'name', 2.5)"
	}
	for b.Loop() {
		if _, err := Parse(q, testCatalog); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseInList measures a WHERE id IN (...) of 100K integer
// literals: parse, lowering and proto encoding (issue 26 item 6).
func BenchmarkParseInList(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("SELECT count(*) FROM t WHERE id IN (")
	for i := range 100_000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(i * 7))
	}
	sb.WriteString(")")
	q := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(q, testCatalog); err != nil {
			b.Fatal(err)
		}
	}
}
