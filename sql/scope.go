package sql

import (
	"errors"
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"

	"github.com/stablerow/stablerow/internal/suggest"
)

// System column names (substrait.md §2): real fields of every table, hidden
// from SELECT * but selectable by name.
const (
	colRowID   = "_rowid"
	colRowAddr = "_rowaddr"
)

func isSystemColumn(name string) bool {
	return strings.EqualFold(name, colRowID) || strings.EqualFold(name, colRowAddr)
}

// column is one field of the record a scope describes.
type column struct {
	qual   string // FROM-item name (alias, or table name without one)
	name   string
	typ    types.Type
	hidden bool // system column: not part of *
	// merged: one side's column of a JOIN ... USING or NATURAL JOIN
	// (using.go). The join's merged column answers to its unqualified
	// name and stands in * for it; this one answers only qualified (t.a)
	// and in t.*, as in PostgreSQL.
	merged bool
	// konst is the constant a reference to this column lowers to: the
	// item of a subquery in FROM that PostgreSQL pulls up (pullconst.go).
	konst expr.Expression
}

// inStar reports whether * (qual "") or qual.* expands to c.
func (c column) inStar(qual string) bool {
	if c.hidden {
		return false
	}
	if qual == "" {
		return !c.merged
	}
	return strings.EqualFold(c.qual, qual)
}

// scope is the record visible to expressions: the output of the FROM clause
// (or of an AggregateRel) in field order.
type scope struct {
	cols []column
	// nLeft is the number of columns from a join's left input while lowering
	// its ON condition (0 otherwise); equalities are written left-first.
	nLeft int
	// aggs is set while lowering over an AggregateRel: the aggregate calls
	// the SELECT list and ORDER BY hold, by node, as measure field indices.
	// Plain column references are then an error.
	aggs map[*pg_query.FuncCall]int32
	// group is set with aggs: the group keys an expression may name
	// (groupby.go).
	group *grouping
	// noAggs says aggregates are not allowed here (WHERE, ON, arguments).
	noAggs string
	// wins is set over a window projection (window.go): the window calls
	// of the SELECT list and ORDER BY, by node, as its field indices;
	// noWins is PostgreSQL's error for a window call where none may be
	// (inside another's arguments or window definition).
	wins   map[*pg_query.FuncCall]int32
	noWins string
	// outer is the enclosing query's scope while lowering a subquery
	// (subquery.go): a name found there, not here, is a correlated
	// reference, which only a subquery's WHERE conjuncts may hold.
	outer *scope
	// shadow, when set, says the first shadow columns are an enclosing
	// query's: the scope of a correlated WHERE conjunct is the outer
	// query's columns then the subquery's, and a name resolves to the
	// subquery's columns first, as in PostgreSQL.
	shadow int
	// corr: a name found in outer's own columns (one level out) is an
	// outer reference (steps_out 1), not errCorrelated: the scope of a
	// plain EXISTS or IN subquery's WHERE and SELECT list, which the
	// optimizer decorrelates (optimize.Decorrelate).
	corr bool
}

func (s *scope) record() *types.RecordType {
	ts := make([]types.Type, len(s.cols))
	for i, c := range s.cols {
		ts[i] = c.typ
	}
	return types.NewRecordTypeFromTypes(ts)
}

// ref builds a field reference to column i.
func (s *scope) ref(i int) (expr.Expression, error) {
	return expr.NewRootFieldRef(expr.NewStructFieldRef(int32(i)), s.record())
}

// hasQual reports whether some column belongs to FROM item q.
func (s *scope) hasQual(q string) bool {
	for _, c := range s.cols {
		if strings.EqualFold(c.qual, q) {
			return true
		}
	}
	return false
}

// lookup resolves [qual.]name to a column index, case-insensitively
// (substrait.md §9). An exact-case match wins over a folded one, so quoted mixed-case
// names still work.
func (l *lowerer) lookup(s *scope, qual, name string, loc int32) (int, error) {
	if s.shadow > 0 {
		// The subquery's own columns first, then the enclosing query's.
		i, err := l.lookup(&scope{cols: s.cols[s.shadow:]}, qual, name, loc)
		if err == nil || !notFound(err) {
			return i + s.shadow, err
		}
		return l.lookup(&scope{cols: s.cols[:s.shadow], outer: s.outer}, qual, name, loc)
	}
	i, err := l.lookupHere(s, qual, name, loc)
	if err != nil && notFound(err) && s.outer != nil {
		if oerr := l.probeOuter(s.outer, qual, name, loc); oerr == nil || !notFound(oerr) {
			full := name
			if qual != "" {
				full = qual + "." + name
			}
			return 0, fmt.Errorf("%w %q (a subquery names the enclosing queries anywhere but in an aggregate's arguments)%s", errCorrelated, full, l.src.at(loc))
		}
	}
	return i, err
}

// names lists the column names a reference qualified by qual (or by
// nothing) could have meant, the user's columns before the system ones,
// for a "did you mean" hint.
func (s *scope) names(qual string) []string {
	var user, sys []string
	for _, c := range s.cols {
		if qual != "" && !strings.EqualFold(c.qual, qual) {
			continue
		}
		if isSystemColumn(c.name) {
			sys = append(sys, c.name)
		} else {
			user = append(user, c.name)
		}
	}
	return append(user, sys...)
}

// notFound: the name is not in this scope (an enclosing one may have it).
func notFound(err error) bool {
	return errors.Is(err, ErrUnknownColumn) || errors.Is(err, ErrUnknownTable)
}

// lookupHere resolves a name among s's own columns.
func (l *lowerer) lookupHere(s *scope, qual, name string, loc int32) (int, error) {
	if qual != "" && !s.hasQual(qual) {
		return 0, fmt.Errorf("%w: missing FROM-clause entry for table %q%s", ErrUnknownTable, qual, l.src.at(loc))
	}
	find := func(match func(a, b string) bool) []int {
		var hits []int
		for i, c := range s.cols {
			if (qual == "" && !c.merged || qual != "" && match(c.qual, qual)) && match(c.name, name) {
				hits = append(hits, i)
			}
		}
		return hits
	}
	hits := find(func(a, b string) bool { return a == b })
	if len(hits) == 0 {
		hits = find(strings.EqualFold)
	}
	full := name
	if qual != "" {
		full = qual + "." + name
	}
	switch len(hits) {
	case 0:
		return 0, fmt.Errorf("%w: column %q does not exist%s%s", ErrUnknownColumn, full, l.src.at(loc), suggest.Hint(name, s.names(qual)))
	case 1:
		return hits[0], nil
	}
	return 0, fmt.Errorf("%w: column reference %q is ambiguous%s", ErrAmbiguous, full, l.src.at(loc))
}

// outerColumn resolves [qual.]name, which s's own query does not have,
// in an enclosing query: an outer reference steps_out n to the query n
// levels out (the first that has it, as PostgreSQL's
// colNameToVar searches the levels outward), where s may name enclosing
// queries at all (correlates). ok is false when it may not, or when no
// enclosing query has the name; err is an enclosing query's error for it
// (ambiguous there). The optimizer unnests the references at any depth
// (optimize.Decorrelate, decorrelate_general.go).
func (l *lowerer) outerColumn(s *scope, qual, name string, loc int32) (value, bool, error) {
	base := s
	if s.aggs != nil {
		if s.group == nil || s.group.input == nil {
			return value{}, false, nil
		}
		base = s.group.input
	}
	if !l.correlates(s) {
		return value{}, false, nil
	}
	if _, err := l.lookupHere(base, qual, name, loc); err == nil || !notFound(err) {
		return value{}, false, nil // this query's own (or ambiguous in it)
	}
	steps := uint32(1)
	for o := base.outer; o != nil; o, steps = o.outer, steps+1 {
		j, err := l.lookupOuterLevel(o, qual, name, loc)
		if err != nil && !notFound(err) {
			return value{}, false, err // ambiguous there, as PostgreSQL says
		}
		if err != nil {
			continue
		}
		if k := o.cols[j].konst; k != nil {
			return value{e: k, loc: loc, name: o.cols[j].name}, true, nil // pullconst.go
		}
		e, ferr := expr.NewRootFieldRef(expr.NewStructFieldRef(int32(j)), o.record())
		if ferr != nil {
			return value{}, false, fmt.Errorf("%w: %w", ErrInvalid, ferr)
		}
		// substrait-go types a field reference only from the root
		// record (NewFieldRefFromType refuses an outer root): made over
		// the enclosing record, then re-rooted steps levels out.
		e.Root = expr.OuterReference(steps)
		return value{e: e, loc: loc, name: o.cols[j].name}, true, nil
	}
	return value{}, false, nil
}

// probeOuter reports whether an enclosing query o, or one around it, has
// [qual.]name (nil), or an error for it there (not notFound).
func (l *lowerer) probeOuter(o *scope, qual, name string, loc int32) error {
	if o.shadow > 0 {
		_, err := l.lookup(o, qual, name, loc)
		return err
	}
	_, err := l.lookupOuterLevel(o, qual, name, loc)
	if err != nil && notFound(err) && o.outer != nil {
		return l.probeOuter(o.outer, qual, name, loc)
	}
	return err
}

// lookupOuterLevel resolves [qual.]name among the columns of the
// enclosing query o. Over GROUP BY (a subquery in the HAVING, SELECT list
// or ORDER BY of a grouped query) the name is one of the FROM items'
// columns, as PostgreSQL resolves it, and must be a group key: it reads
// that key's column of the aggregate (t.a under GROUP BY t.a), and any
// other column is PostgreSQL's error (check_ungrouped_columns).
func (l *lowerer) lookupOuterLevel(o *scope, qual, name string, loc int32) (int, error) {
	if o.aggs == nil || o.group == nil || o.group.input == nil {
		return l.lookupHere(o, qual, name, loc)
	}
	in := o.group.input
	i, err := l.lookupHere(in, qual, name, loc)
	if err != nil {
		return 0, err
	}
	e, err := in.ref(i)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if k := o.group.keyFor(e); k >= 0 {
		return k, nil
	}
	full := name
	if q := in.cols[i].qual; q != "" {
		full = q + "." + name
	}
	return 0, fmt.Errorf("%w: subquery uses ungrouped column %q from outer query%s", ErrInvalid, full, l.src.at(loc))
}

// correlates reports whether an expression over s may name an enclosing
// query: the WHERE, SELECT list, GROUP BY and HAVING of a subquery
// (scope.corr), and anything inside a LATERAL item or a subquery's FROM
// (lowerer.lateral, select.go), but an aggregate's
// arguments and FILTER (an aggregate of only outer columns belongs to the
// outer query in PostgreSQL, which refuses it in FROM: left refused).
func (l *lowerer) correlates(s *scope) bool {
	return (s.corr || l.lateral > 0) && s.noAggs != "in aggregate arguments" && s.noAggs != "in FILTER"
}
