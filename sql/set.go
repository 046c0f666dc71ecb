package sql

import (
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Set is SET name {TO | =} value, SET name TO DEFAULT, RESET name or
// RESET ALL. The front end does not know the settings: the engine checks
// the name and reads the value (so `SET memory_limit = '256MB'` and
// `SET memory_limit TO 268435456` reach it as the same kind of text).
type Set struct {
	// Name is the setting, lower case as PostgreSQL folds it; "" with
	// Reset is RESET ALL.
	Name string
	// Value is the value as text (a string literal's contents, or the
	// digits of a number); empty with Reset.
	Value string
	// Reset is SET ... TO DEFAULT, RESET name or RESET ALL: back to the
	// session's default.
	Reset bool
}

func (*Set) statement() {}

// set lowers a VariableSetStmt. SET LOCAL (transaction scope, and
// stablerow has no transactions), lists of values and SET of special
// forms (TIME ZONE, SESSION AUTHORIZATION, ...) are refused.
func (l *lowerer) set(s *pg_query.VariableSetStmt) (Statement, error) {
	if s.IsLocal {
		return nil, fmt.Errorf("%w: SET LOCAL (settings are not transactional; use SET outside a transaction)", ErrUnsupported)
	}
	name := strings.ToLower(s.Name)
	switch s.Kind {
	case pg_query.VariableSetKind_VAR_SET_DEFAULT, pg_query.VariableSetKind_VAR_RESET:
		return &Set{Name: name, Reset: true}, nil
	case pg_query.VariableSetKind_VAR_RESET_ALL:
		return &Set{Reset: true}, nil
	case pg_query.VariableSetKind_VAR_SET_VALUE:
	default:
		return nil, fmt.Errorf("%w: this form of SET", ErrUnsupported)
	}
	if len(s.Args) != 1 {
		return nil, fmt.Errorf("%w: SET %s takes one value", ErrUnsupported, name)
	}
	c := s.Args[0].GetAConst()
	if c == nil || c.Isnull {
		return nil, fmt.Errorf("%w: SET %s value must be a constant", ErrInvalid, name)
	}
	var v string
	switch x := c.Val.(type) {
	case *pg_query.A_Const_Sval:
		v = x.Sval.Sval
	case *pg_query.A_Const_Ival:
		v = strconv.FormatInt(int64(x.Ival.Ival), 10)
	case *pg_query.A_Const_Fval:
		v = x.Fval.Fval
	case *pg_query.A_Const_Boolval:
		v = strconv.FormatBool(x.Boolval.Boolval)
	default:
		return nil, fmt.Errorf("%w: SET %s value must be a constant", ErrInvalid, name)
	}
	return &Set{Name: name, Value: v}, nil
}
