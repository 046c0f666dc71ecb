package sql_test

import (
	"errors"
	"testing"

	"github.com/stablerow/stablerow/sql"
)

func TestSetStatement(t *testing.T) {
	for _, c := range []struct {
		text string
		want sql.Set
	}{
		{"SET memory_limit = '256MB'", sql.Set{Name: "memory_limit", Value: "256MB"}},
		{"SET Memory_Limit TO 1048576", sql.Set{Name: "memory_limit", Value: "1048576"}},
		{"set memory_limit to default", sql.Set{Name: "memory_limit", Reset: true}},
		{"RESET memory_limit", sql.Set{Name: "memory_limit", Reset: true}},
		{"RESET ALL", sql.Set{Reset: true}},
		{"SET spill_dir = '/tmp/x'", sql.Set{Name: "spill_dir", Value: "/tmp/x"}},
	} {
		stmts, err := sql.Parse(c.text, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		got, ok := stmts[0].(*sql.Set)
		if !ok || *got != c.want {
			t.Fatalf("%s: got %#v, want %#v", c.text, stmts[0], c.want)
		}
	}
	for _, bad := range []string{"SET LOCAL memory_limit = '1GB'", "SET memory_limit = '1GB', '2GB'"} {
		if _, err := sql.Parse(bad, nil); !errors.Is(err, sql.ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", bad, err)
		}
	}
}
