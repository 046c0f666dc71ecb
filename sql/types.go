package sql

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// typeName resolves a TypeName node with its modifiers (VARCHAR(5),
// CHAR(3), FLOAT(24), TIMESTAMP(6)). array reports a T[] type.
func typeName(tn *pg_query.TypeName) (k kind, array bool, err error) {
	if tn == nil {
		return kindUnknown, false, fmt.Errorf("%w: missing type", ErrUnsupported)
	}
	var parts []string
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().GetSval())
	}
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		parts = parts[1:]
	}
	name := strings.Join(parts, ".")
	k, ok := sqlTypeNames[name]
	if !ok || tn.Setof || tn.PctType {
		return kindUnknown, false, fmt.Errorf("%w: type %s", ErrUnsupported, name)
	}
	if k, err = typeMods(name, k, tn.Typmods); err != nil {
		return kindUnknown, false, err
	}
	switch len(tn.ArrayBounds) {
	case 0:
	case 1:
		array = true
	default:
		return kindUnknown, false, fmt.Errorf("%w: multidimensional array type", ErrUnsupported)
	}
	return k, array, nil
}

// typeMods applies a type's modifiers: the length of varchar(n) and
// char(n), float(p) (p <= 24 is real, else double precision, as
// PostgreSQL reads it) and timestamp(6), the only precision we store.
func typeMods(name string, k kind, mods []*pg_query.Node) (kind, error) {
	if k.ID == idNumeric {
		return numericMods(mods)
	}
	if len(mods) == 0 {
		if name == "float" {
			return kindF64, nil
		}
		return k, nil
	}
	if len(mods) != 1 {
		return kindUnknown, fmt.Errorf("%w: type modifiers of %s", ErrUnsupported, name)
	}
	c := mods[0].GetAConst()
	if c == nil || c.GetIval() == nil {
		return kindUnknown, fmt.Errorf("%w: type modifier of %s must be a simple constant", ErrSyntax, name)
	}
	n := c.GetIval().Ival
	switch {
	case k.ID == idVarchar || k.ID == idChar:
		if n < 1 {
			return kindUnknown, fmt.Errorf("%w: length for type %s must be at least 1", ErrInvalid, name)
		}
		if n > maxCharLength {
			return kindUnknown, fmt.Errorf("%w: length for type %s cannot exceed %d", ErrInvalid, name, maxCharLength)
		}
		k.N = n
		return k, nil
	case name == "float":
		switch {
		case n < 1:
			return kindUnknown, fmt.Errorf("%w: precision for type float must be at least 1 bit", ErrInvalid)
		case n <= 24:
			return kindF32, nil
		case n <= 53:
			return kindF64, nil
		}
		return kindUnknown, fmt.Errorf("%w: precision for type float must be less than 54 bits", ErrInvalid)
	case k.ID == idTimestamp && n == 6:
		return k, nil
	}
	return kindUnknown, fmt.Errorf("%w: type modifier %d of %s", ErrUnsupported, n, name)
}

// numericMods reads NUMERIC(p[, s]): 1 <= p <= 38 (decimal128), 0 <= s <=
// p. NUMERIC without a precision, whose scale PostgreSQL chooses per
// value, has no decimal128 type and is refused.
func numericMods(mods []*pg_query.Node) (kind, error) {
	if len(mods) == 0 || len(mods) > 2 {
		return kindUnknown, fmt.Errorf("%w: NUMERIC without a precision (write NUMERIC(p, s))", ErrUnsupported)
	}
	var ps [2]int32
	for i, m := range mods {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			return kindUnknown, fmt.Errorf("%w: type modifier of numeric must be a simple constant", ErrSyntax)
		}
		ps[i] = c.GetIval().Ival
	}
	p, s := ps[0], ps[1]
	switch {
	case p < 1 || p > 1000:
		return kindUnknown, fmt.Errorf("%w: NUMERIC precision %d must be between 1 and 1000", ErrInvalid, p)
	case p > sqlvalue.MaxDecimalPrecision:
		return kindUnknown, fmt.Errorf("%w: NUMERIC precision %d (decimal128 holds 38 digits)", ErrUnsupported, p)
	case s < 0 || s > p:
		return kindUnknown, fmt.Errorf("%w: NUMERIC scale %d must be between 0 and precision %d", ErrUnsupported, s, p)
	}
	return kindNumeric(p, s), nil
}
