package value

import (
	"errors"
	"testing"
)

// TestLikeEscape: PostgreSQL's like_escape rewrites.
func TestLikeEscape(t *testing.T) {
	for _, c := range []struct{ pat, esc, want string }{
		{"a#%", "#", `a\%`},
		{`a\b`, "#", `a\\b`},
		{"a##", "#", `a\#`},
		{`a\%`, "", `a\\%`},
		{`a\%`, `\`, `a\%`},
		{"xé%", "é", `x\%`},
	} {
		got, err := LikeEscape(c.pat, c.esc)
		if err != nil || got != c.want {
			t.Errorf("LikeEscape(%q, %q) = %q, %v; want %q", c.pat, c.esc, got, err, c.want)
		}
	}
	if _, err := LikeEscape("a", "xy"); !errors.Is(err, ErrEscape) {
		t.Fatalf("two-character escape: %v", err)
	}
}
