package sql

import (
	"fmt"
)

// datetimeArith lowers PostgreSQL's date arithmetic: date + integer and
// integer + date are date (date_pli, "date out of range" past the valid
// dates), date - integer is date (date_mii), date - date is the integer
// number of days between them (date_mi). Other arithmetic on a date or a
// timestamp is refused: interval, which timestamp arithmetic needs, is not
// a type here. ok is false when neither operand is a date or timestamp.
// An untyped operand beside a date is an integer (NULL, '3', $1).
func (l *lowerer) datetimeArith(op string, lv, rv value, loc int32) (value, bool, error) {
	lk, rk := lv.kind(), rv.kind()
	if !lk.Datetime() && !rk.Datetime() {
		return value{}, false, nil
	}
	noOp := func() error {
		return fmt.Errorf("%w: operator does not exist: %s %s %s%s", ErrType, l.describeKind(lv), op, l.describeKind(rv), l.src.at(loc))
	}
	if lk == kindTimestamp || rk == kindTimestamp {
		if (op == "+" || op == "-") && (lk.Datetime() || rk.Datetime()) {
			return value{}, true, fmt.Errorf("%w: timestamp arithmetic (interval is not supported)%s", ErrUnsupported, l.src.at(loc))
		}
		return value{}, true, noOp()
	}
	isInt := func(v value) bool {
		k := v.kind()
		return v.how != typed || k == kindI16 || k == kindI32
	}
	var d, n value
	switch {
	case lk == kindDate && rk == kindDate && op == "-":
		a, err := l.coerce(lv, kindDate)
		if err != nil {
			return value{}, true, err
		}
		b, err := l.coerce(rv, kindDate)
		if err != nil {
			return value{}, true, err
		}
		e, err := l.call(urnArithmetic, "subtract", loc, a, b)
		return value{e: e, loc: loc}, true, err
	case lk == kindDate && isInt(rv) && (op == "+" || op == "-"):
		d, n = lv, rv
	case rk == kindDate && isInt(lv) && op == "+":
		d, n = rv, lv // integer + date is date + integer
	case lk == kindDate && rv.how != typed && op == "-":
		d, n = lv, rv
	default:
		return value{}, true, noOp()
	}
	a, err := l.coerce(d, kindDate)
	if err != nil {
		return value{}, true, err
	}
	b, err := l.coerce(n, kindI32)
	if err != nil {
		return value{}, true, err
	}
	e, err := l.call(urnArithmetic, arithmetic[op], loc, a, b)
	return value{e: e, loc: loc}, true, err
}

// describeKind names v's type for "operator does not exist".
func (l *lowerer) describeKind(v value) string {
	if v.how != typed {
		return "unknown"
	}
	return v.kind().String()
}
