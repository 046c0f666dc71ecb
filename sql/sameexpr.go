package sql

import (
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	"google.golang.org/protobuf/proto"
)

// sameExpr is PostgreSQL's equal() for lowered expressions: GROUP BY,
// DISTINCT ON and ORDER BY items match select items and each other by it
// (findTargetlistEntrySQL99, transformDistinctOnClause).
//
// It compares the Substrait protobuf forms, not with substrait-go's
// Equals: ScalarFunction.Equals indexes the other call's arguments by its
// own count and panics when a variadic call has fewer, as
// coalesce(a, a) against coalesce(a, a, b) (difftest seed 20261229 case
// 97210); equal() compares the argument lists' lengths first. proto.Equal
// treats two NaN constants as equal, as equal() compares a Const's bits
// (ORDER BY CAST('NaN' AS real) names the select item of that text); the
// text comparison keeps that for any expression form proto does not hold
// the NaN in.
func sameExpr(k, e expr.Expression) bool {
	if proto.Equal(k.ToProto(), e.ToProto()) {
		return true
	}
	return k.GetType().Equals(e.GetType()) && strings.Contains(k.String(), "NaN") && k.String() == e.String()
}
