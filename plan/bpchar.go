package plan

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
)

// character(n) between Substrait and the engine (exec/bpchar.go holds the
// representation and why). A Substrait fixedchar<n> value is n characters
// long; the engine holds it without its trailing blanks. The planner
// converts at the edges, and nowhere else:
//
//   - coming in: a fixedchar literal loses its trailing blanks
//     (charLiteral), a cast into fixedchar<n> checks the length and strips
//     (charCast); a table's char(n) column is stored stripped already;
//   - inside: a cast from fixedchar to string or varchar (PostgreSQL's
//     bpchar to text, rtrim) is no conversion, so comparisons of char(n)
//     columns run the string kernels on the column itself;
//   - going out: the plan's result columns of type fixedchar<n> are
//     blank-padded to n (rootPads), unless the rows are written to a table
//     (Options.WriteSource), which stores the engine's form.

// charLiteral is a fixedchar literal in the engine's form.
func charLiteral(s string) physexpr.Lit { return physexpr.Lit{Value: physexpr.TrimBlanks(s)} }

// lengthCast reports a cast that checks or changes string values though
// their Arrow type stays string: into varchar(n) or char(n).
func lengthCast(from, to types.Type) bool {
	switch to.(type) {
	case *types.VarCharType, *types.FixedCharType:
		return true
	case *types.StringType:
		_, fromChar := from.(*types.FixedCharType)
		return fromChar
	}
	return false
}

// charCast plans a cast between string types as physexpr.CharCast: PostgreSQL's
// assignment coercion into varchar(n) (too long is an error unless only
// blanks are cut) and char(n) (its trailing blanks go: the engine's form),
// and char(n) to text, which is the value as it is (its trailing blanks
// are gone already). Substrait's cast has no truncating mode, so an
// explicit SQL cast of a column to varchar(n) is not expressible (the SQL
// front end folds it for constants only).
func charCast(in physexpr.Expr, from, to types.Type) (physexpr.Expr, bool) {
	if !lengthCast(from, to) {
		return nil, false
	}
	switch from.(type) {
	case *types.FixedCharType:
		if _, ok := to.(*types.StringType); ok {
			return in, true
		}
	case *types.StringType, *types.VarCharType:
	default:
		// A number or date into varchar(n): to text first.
		in = physexpr.Cast{E: in, To: arrow.BinaryTypes.String}
	}
	cc := physexpr.CharCast{E: in}
	switch t := to.(type) {
	case *types.VarCharType:
		cc.Len = int(t.Length)
	case *types.FixedCharType:
		cc.Len, cc.Char = int(t.Length), true
	}
	return cc, true
}

// uncastChar is e without a cast from fixedchar to string, which changes
// no value in the engine: char(n) = 'x' is a key lookup of the column.
func uncastChar(e expr.Expression) expr.Expression {
	if c, ok := e.(*expr.Cast); ok && c.Input != nil {
		if _, from := c.Input.GetType().(*types.FixedCharType); from {
			if _, to := c.Type.(*types.StringType); to {
				return c.Input
			}
		}
	}
	return e
}

// rootPads is, for each result column of types ts, the length to
// blank-pad it to (a fixedchar<n> column), else 0; nil when no column is
// one.
func rootPads(ts []types.Type) []int {
	var pads []int
	for i, t := range ts {
		if c, ok := t.(*types.FixedCharType); ok && c.Length > 0 {
			if pads == nil {
				pads = make([]int, len(ts))
			}
			pads[i] = int(c.Length)
		}
	}
	return pads
}
