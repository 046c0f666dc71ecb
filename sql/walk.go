package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// aggregateCalls returns the aggregate calls inside the given trees, in
// source order, not descending into the aggregates themselves (nesting is
// reported when their arguments are lowered).
func aggregateCalls(nodes ...*pg_query.Node) []*pg_query.FuncCall {
	var out []*pg_query.FuncCall
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if sl, ok := m.Interface().(*pg_query.SubLink); ok {
			// A subquery's aggregates are its own; its test expression
			// (the x of x op ANY (...), x IN (...)) is the enclosing
			// query's, as PostgreSQL's transformSubLink lowers it there.
			if t := sl.GetTestexpr(); t != nil {
				walk(t.ProtoReflect())
			}
			return
		}
		if fc, ok := m.Interface().(*pg_query.FuncCall); ok && isAggregate(fc) && fc.Over == nil {
			out = append(out, fc)
			return
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return true })
	}
	for _, n := range nodes {
		if n != nil {
			walk(n.ProtoReflect())
		}
	}
	return out
}

// eachChild calls f on every message-valued field of m, list elements in
// order (maps are not walked: pg_query's nodes have none), until f returns
// false. The one child iteration of the parse-tree walks here.
func eachChild(m protoreflect.Message, f func(protoreflect.Message) bool) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		switch {
		case fd.IsList():
			for i := range v.List().Len() {
				if !f(v.List().Get(i).Message()) {
					return false
				}
			}
			return true
		case fd.IsMap():
			return true
		}
		return f(v.Message())
	})
}

// relationNames lists the distinct relation names a statement's tree
// names (RangeVar: FROM items, JOINs, DML targets, COPY; a CTE's name
// too, which no catalog will be asked for), lower-cased unless quoted as
// written, in tree order; for TableNamer.
func relationNames(n *pg_query.Node) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if rv, ok := m.Interface().(*pg_query.RangeVar); ok && rv.Relname != "" && !seen[rv.Relname] {
			seen[rv.Relname] = true
			out = append(out, rv.Relname)
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return true })
	}
	if n != nil {
		walk(n.ProtoReflect())
	}
	return out
}
