package sql

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRewrite(t *testing.T) {
	for _, c := range []struct {
		in, out string
		names   [][]string // per ';'-separated segment
	}{
		{"SELECT :a, ':b', \":c\", :a -- :d\n/* :e */ x::int, :f", "SELECT $1, ':b', \":c\", $1 -- :d\n/* :e */ x::int, $2", [][]string{{"a", "f"}}},
		{"SELECT :ids::text[], $$ :x $$, E'\\' :y', :Select", "SELECT $1::text[], $$ :x $$, E'\\' :y', $2", [][]string{{"ids", "select"}}},
		{"SELECT :b, :a; SELECT :a", "SELECT $1, $2; SELECT $1", [][]string{{"b", "a"}, {"a"}}},
		{`SELECT :"Mixed", :mixed`, "SELECT $1, $2", [][]string{{"Mixed", "mixed"}}},
		{"SELECT a[1 : 2], : x", "SELECT a[1 : 2], : x", [][]string{nil}},
	} {
		src, err := rewrite(c.in, Pos{Line: 1, Column: 1})
		require.NoError(t, err, c.in)
		assert.Equal(t, c.out, src.text, c.in)
		var names [][]string
		for _, s := range src.segments {
			names = append(names, s.names)
		}
		assert.Equal(t, c.names, names, c.in)
	}
}

// TestOrigOffset checks every rewritten offset maps back to the matching
// place of the original text.
func TestOrigOffset(t *testing.T) {
	in := "SELECT :alpha + :b, :alpha, x"
	src, err := rewrite(in, Pos{Line: 1, Column: 1})
	require.NoError(t, err)
	require.Equal(t, "SELECT $1 + $2, $1, x", src.text)
	for off, want := range map[int]int{0: 0, 7: 7, 9: 13, 10: 14, 12: 16, 14: 18, 16: 20, 18: 26, 20: 28, 21: 29} {
		assert.Equal(t, want, src.origOffset(off), "offset %d", off)
	}
}
