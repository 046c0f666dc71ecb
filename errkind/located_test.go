package errkind

import (
	"errors"
	"fmt"
	"testing"
)

func TestMessageDropsStackedSentinels(t *testing.T) {
	sqlUnknown := Category(NotFound, "sql: unknown table")
	engUnknown := Category(NotFound, "engine: unknown table")
	sqlType := Category(InvalidArgument, "sql: type error")
	divZero := New(OutOfRange, "exec: division by zero")
	unsupported := New(Unsupported, "sql: unsupported")
	tooDeep := New(InvalidArgument, "sql: stack depth limit exceeded")
	format := New(InvalidArgument, "unknown output format")

	located := &Located{Line: 1, Column: 15, At: " at line 1, column 15",
		Err: fmt.Errorf("%w: table \"salse\" does not exist at line 1, column 15 (did you mean \"sales\"?)", sqlUnknown)}
	cases := []struct {
		err   error
		caret bool
		want  string
	}{
		// Two layers' sentinels stacked in front and behind the message.
		{fmt.Errorf("%w: %w: %q", sqlUnknown, engUnknown, "salse"), false, `"salse"`},
		{fmt.Errorf("statement 2 (line 3): %w: cannot cast%s", sqlType, " at line 3, column 8"), false,
			"statement 2 (line 3): cannot cast at line 3, column 8"},
		// A sentinel that is the whole message keeps its words.
		{fmt.Errorf("%w", divZero), false, "division by zero"},
		{fmt.Errorf("run: %w", divZero), false, "run: division by zero"},
		// A sentinel that says what happened keeps its words, only its
		// package goes; one without a package stays as it is.
		{fmt.Errorf("%w: function md5", unsupported), false, "unsupported: function md5"},
		{fmt.Errorf("%w: the statement nests more than 1000 levels", tooDeep), false, "stack depth limit exceeded: the statement nests more than 1000 levels"},
		{fmt.Errorf("%w: -format %q", format, "xml"), false, `unknown output format: -format "xml"`},
		// A category alone is the message.
		{sqlType, false, "type error"},
		// The position is left out only when the caller shows a caret.
		{located, false, `table "salse" does not exist at line 1, column 15 (did you mean "sales"?)`},
		{located, true, `table "salse" does not exist (did you mean "sales"?)`},
		// No sentinel: the text as it is.
		{errors.New("open x: no such file"), true, "open x: no such file"},
	}
	for _, c := range cases {
		if got := Message(c.err, c.caret); got != c.want {
			t.Errorf("Message(%q, %v) = %q, want %q", c.err, c.caret, got, c.want)
		}
	}
}

func TestLocatedIsTransparent(t *testing.T) {
	sent := New(InvalidArgument, "sql: type error")
	inner := fmt.Errorf("%w: bad at line 2, column 3", sent)
	err := fmt.Errorf("statement 1: %w", &Located{Line: 2, Column: 3, At: " at line 2, column 3", Err: inner})
	if !errors.Is(err, sent) || !errors.Is(err, InvalidArgument) {
		t.Fatal("Located hides its error from errors.Is")
	}
	if err.Error() != "statement 1: "+inner.Error() {
		t.Fatalf("Located changed the text: %q", err)
	}
	var loc *Located
	if !errors.As(err, &loc) || loc.Line != 2 || loc.Column != 3 {
		t.Fatalf("errors.As: %+v", loc)
	}
}
