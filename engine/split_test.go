package engine

import (
	"slices"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

func TestSplitStatements(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		rest string
	}{
		{"SELECT 1; SELECT 2", []string{"SELECT 1"}, " SELECT 2"},
		// A statement that does not parse is still a statement: libpg_query's
		// scanner split drops "SELEC 2" here.
		{"INSERT INTO a VALUES (2); SELEC 2; INSERT INTO a VALUES (3);", []string{"INSERT INTO a VALUES (2)", " SELEC 2", " INSERT INTO a VALUES (3)"}, ""},
		{"SELECT 'a;b'; SELECT 'it''s;'", []string{"SELECT 'a;b'"}, " SELECT 'it''s;'"},
		{`SELECT E'x\';y'; SELECT 2;`, []string{`SELECT E'x\';y'`, " SELECT 2"}, ""},
		{`SELECT e'\\'; SELECT 2;`, []string{`SELECT e'\\'`, " SELECT 2"}, ""},
		// Only an E that starts a word opens an escape string.
		{`SELECT namE'\'; SELECT 2`, []string{`SELECT namE'\'`}, " SELECT 2"},
		{`SELECT "a;""b" FROM t; SELECT 2;`, []string{`SELECT "a;""b" FROM t`, " SELECT 2"}, ""},
		{"SELECT $$a;b$$; SELECT $x$ $$; $x$;", []string{"SELECT $$a;b$$", " SELECT $x$ $$; $x$"}, ""},
		{"SELECT $1; SELECT a$b$c;", []string{"SELECT $1", " SELECT a$b$c"}, ""},
		{"SELECT 1 -- c; d\n; SELECT 2 /* x; /* nested; */ y; */;", []string{"SELECT 1 -- c; d\n", " SELECT 2 /* x; /* nested; */ y; */"}, ""},
		{"; ;; -- only comments; \n /* ; */ ;", nil, ""},
		{"SELECT 1; -- trailing comment", []string{"SELECT 1"}, ""},
		// Unterminated: the rest runs to the end, the parser reports it.
		{"SELECT 1; SELECT 'open; SELECT 3", []string{"SELECT 1"}, " SELECT 'open; SELECT 3"},
		{"SELECT 1; /* open; SELECT 3", []string{"SELECT 1"}, " /* open; SELECT 3"},
	}
	for _, c := range cases {
		stmts, rest := SplitStatements(c.in)
		var got []string
		for _, s := range stmts {
			got = append(got, s.Text)
			if c.in[s.Offset:s.Offset+len(s.Text)] != s.Text {
				t.Errorf("%q: offset %d does not locate %q", c.in, s.Offset, s.Text)
			}
		}
		if !slices.Equal(got, c.want) || rest.Text != c.rest {
			t.Errorf("SplitStatements(%q) = %q, rest %q; want %q, rest %q", c.in, got, rest.Text, c.want, c.rest)
		}
	}
}

// FuzzSplit checks the splitter against PostgreSQL's own lexer: wherever
// libpg_query's scanner accepts the text, the semicolons that end
// statements are exactly its ';' tokens.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		"SELECT 1; SELECT 2", "SELECT 'a;b'; SELECT E'\\';'", `SELECT "x;" FROM t;`,
		"SELECT $$;$$; SELECT $a$ ; $a$", "SELECT 1 -- ;\n; /* ; /* ; */ */ SELECT 2",
		"SELECT U&'d;\\0061t'; SELECT B'01'; SELECT X'1f';", "SELECT 1::int; SELECT :ids;",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			return // C strings end at NUL; DB.Query refuses NUL bytes
		}
		seps, _ := separators(s)
		res, err := pg_query.Scan(s)
		if err != nil {
			return
		}
		var want []int
		for _, tok := range res.Tokens {
			if tok.Token == pg_query.Token_ASCII_59 {
				want = append(want, int(tok.Start))
			}
		}
		if !slices.Equal(seps, want) {
			t.Fatalf("separators(%q) = %v, PostgreSQL's lexer has ';' at %v", s, seps, want)
		}
	})
}

// TestOpenAtEnd: where a line starting with '\' is text (inside a literal,
// a quoted name, a dollar quote or a block comment) and where it may be a
// prompt's backslash command.
func TestOpenAtEnd(t *testing.T) {
	for _, tc := range []struct {
		text string
		open bool
	}{
		{"", false},
		{"SELECT 1\n", false},
		{"SELECT 'a\n", true},
		{"SELECT 'a''\n", true}, // a doubled quote is a quote
		{"SELECT 'a'''\n", false},
		{"SELECT E'a\\'\n", true}, // the backslash escapes the quote
		{"SELECT E'a\\\\'\n", false},
		{"SELECT 'a\\'\n", false}, // standard strings: a backslash is text
		{"SELECT \"we\n", true},
		{"SELECT $$x\n", true},
		{"SELECT $t$x$$\n", true},
		{"SELECT $t$x$t$\n", false},
		{"SELECT $1 +\n", false}, // a parameter, not a dollar quote
		{"SELECT /* a\n", true},
		{"SELECT /* a /* b */\n", true}, // they nest
		{"SELECT /* a /* b */ */\n", false},
		{"SELECT 1 -- 'not a literal\n", false},
		{"SELECT ';' AS x\n", false},
	} {
		if got := OpenAtEnd(tc.text); got != tc.open {
			t.Errorf("OpenAtEnd(%q) = %v, want %v", tc.text, got, tc.open)
		}
	}
}
