package suggest

import "testing"

func TestClosest(t *testing.T) {
	cmds := []string{"demo", "sql", "substrait", "inspect", "vacuum", "serve", "version", "help"}
	for _, tc := range []struct {
		name string
		want string // "" for no suggestion
	}{
		{"sqll", "sql"},
		{"SQL", "sql"},
		{"sq", "sql"},
		{"serv", "serve"},
		{"sevre", "serve"}, // a swap is one edit
		{"vacum", "vacuum"},
		{"substrat", "substrait"},
		{"inspcet", "inspect"},
		{"versoin", "version"},
		{"xyz", ""},
		{"select", ""},  // 4+ edits from every command
		{"s", ""},       // one letter is too little to guess from
		{"dem", "demo"}, // 1 edit, short name
		{"deno", "demo"},
		{"ab", ""},
	} {
		got, ok := Closest(tc.name, cmds)
		if tc.want == "" {
			if ok {
				t.Errorf("Closest(%q) = %q, want nothing", tc.name, got)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("Closest(%q) = %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}

func TestClosestPrefersNearest(t *testing.T) {
	// "salse" is one swap from "sales" and two edits from "sails".
	if got, _ := Closest("salse", []string{"sails", "sales"}); got != "sales" {
		t.Fatalf("got %q, want the nearer sales", got)
	}
	// A tie goes to the earlier candidate: "salse" is one edit from both.
	if got, _ := Closest("salse", []string{"sale", "sales"}); got != "sale" {
		t.Fatalf("got %q, want the earlier of two at one edit", got)
	}
	if got, _ := Closest("lineitme", []string{"orders", "lineitem", "linetime"}); got != "lineitem" {
		t.Fatalf("got %q", got)
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"ab", "ba", 1}, {"abc", "acb", 1}, {"ca", "abc", 3}, // OSA, not Damerau: ca→abc is 3
		{"naïve", "naive", 1}, {"日本語", "日本", 1},
	} {
		if got := distance(tc.a, tc.b, 10); got != tc.d {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
		if got := distance(tc.a, tc.b, 0); (tc.d == 0) != (got == 0) || got > 1 {
			t.Errorf("distance(%q, %q, limit 0) = %d", tc.a, tc.b, got)
		}
	}
}

func TestHint(t *testing.T) {
	if h := Hint("sqll", []string{"sql"}); h != ` (did you mean "sql"?)` {
		t.Fatalf("Hint: %q", h)
	}
	if h := Hint("zzzz", []string{"sql"}); h != "" {
		t.Fatalf("Hint of nothing close: %q", h)
	}
}

func FuzzDistance(f *testing.F) {
	f.Add("kitten", "sitting")
	f.Add("", "x")
	f.Add("ab", "ba")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := distance(a, b, 1<<20)
		if d != distance(b, a, 1<<20) {
			t.Fatalf("not symmetric: %q %q", a, b)
		}
		if (d == 0) != (string([]rune(a)) == string([]rune(b))) {
			t.Fatalf("zero distance iff equal: %q %q = %d", a, b, d)
		}
		na, nb := len([]rune(a)), len([]rune(b))
		if d > max(na, nb) || d < max(na-nb, nb-na) {
			t.Fatalf("distance %d out of bounds for %q %q", d, a, b)
		}
		if lim := d - 1; lim >= 0 && distance(a, b, lim) <= lim {
			t.Fatalf("the cut-off under-reports: %q %q", a, b)
		}
	})
}
