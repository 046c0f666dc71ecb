package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestCLIAvgNumericScale: the binary prints avg(numeric) at PostgreSQL
// 15's scale for a mean of about 1 to 10^4 (psql: 2.2500000000000000 for
// avg of NUMERIC(10,2) 2.25, 3.5, 1, and 11934.4833333333333333); a
// smaller mean PostgreSQL prints at 20 digits is rounded to the
// column's 16 (PostgreSQL 0.01666666666666666667).
func TestCLIAvgNumericScale(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, `CREATE TABLE w (g INT, n NUMERIC(10,2));
		INSERT INTO w VALUES (1, 2.25), (1, 3.5), (1, 1), (2, 12345.67), (2, 23456.78), (2, 1), (3, 0.01), (3, 0.02), (3, 0.02)`, "-create")
	got := tableRows(mustSQL(t, dir, "SELECT avg(n) FROM w WHERE g = 1; SELECT g, avg(n) FROM w GROUP BY g ORDER BY g"))
	want := "[[2.2500000000000000] [1 | 2.2500000000000000 2 | 11934.4833333333333333 3 | 0.0166666666666667]]"
	if s := fmt.Sprint(got); s != want {
		t.Fatalf("avg(numeric):\n got %s\nwant %s", s, want)
	}
}
