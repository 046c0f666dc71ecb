package difftest

import (
	"strconv"
)

// Issue 26 item 6's shape: x [NOT] IN a list of 64 to 160 bare constants,
// long enough for the SQL front end to cut it out of the text and lower
// it as one list literal (sql/constlist.go). The constants mix what
// PostgreSQL types differently: int4 and int8 integers, negative ones,
// decimals and exponents (numeric beside an integer, double precision
// beside a float), quoted strings (read as the operand's type), and bare
// NULLs (IN is then never false, NOT IN never true). Every constant
// converts to the operand's type, so nothing raises.

// longInList sometimes turns an IN list drawn over type t (args: the
// operand and the short list) into a long list of constants, returned
// as the new items (nil: keep the short list). Its draws come from a
// source seeded by the list drawn (auxGen), not from the case's own, so
// the rest of the case is drawn as before.
func longInList(t Type, args []*Expr) []*Expr {
	switch t {
	case TInt, TI32, TI16, TFloat, TNumeric, TText:
	default:
		return nil
	}
	var seed []any
	for _, a := range args {
		seed = append(seed, a.SQL())
	}
	aux := auxGen(append(seed, "inlist")...)
	if !aux.p(0.3) {
		return nil
	}
	nulls := aux.p(0.3)
	items := make([]*Expr, aux.between(64, 160))
	for i := range items {
		items[i] = aux.listConstant(t, nulls)
	}
	return items
}

// listConstant is one bare constant of a long IN list over type t.
func (g *Gen) listConstant(t Type, nulls bool) *Expr {
	e := &Expr{Op: "lit", Type: t}
	if nulls && g.p(0.05) {
		e.Text = "NULL"
		return e
	}
	small := func() string { return strconv.Itoa(g.between(-20, 20)) }
	switch t {
	case TInt, TI32, TI16:
		switch g.n(12) {
		case 0:
			e.Text = strconv.FormatInt(3_000_000_000+int64(g.n(5)), 10) // int8
		case 1:
			e.Text = pick(g, []string{"1.5", "-2.5", "0.0", "1e3", "1.50e1", "-7.0", "12345.678e-2"}) // numeric
		case 2:
			e.Text = quote(small()) // unknown, read as the operand's type
		case 3, 4, 5:
			e.Text = small()
		default:
			var v int64
			switch t {
			case TInt:
				v = g.intValue()
			case TI32:
				v = pick(g, i32Pool[:9])
			default:
				v = pick(g, i16Pool[:10])
			}
			e.Text = strconv.FormatInt(v, 10)
		}
	case TFloat:
		switch g.n(4) {
		case 0:
			e.Text = pick(g, []string{"0.5", "-0.0", "1e2", "2.25", "-1.5e1", "1e-3"})
		case 1:
			e.Text = quote(floatText(g.floatValue()))
		default:
			e.Text = small()
		}
	case TNumeric:
		if g.p(0.3) {
			e.Text = small()
		} else {
			e.Text = pick(g, numPool)
		}
	default: // TText
		switch g.n(3) {
		case 0:
			e.Text = quote(pick(g, textPoolExpr))
		default:
			e.Text = quote(pick(g, textPool))
		}
	}
	return e
}
