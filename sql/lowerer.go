package sql

import (
	"fmt"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// Function URNs of the standard extensions (substrait.md §5).
const (
	urnComparison = substraitfn.URNComparison
	urnBoolean    = substraitfn.URNBoolean
	urnArithmetic = substraitfn.URNArithmetic
)

// lowerer turns one statement into Substrait. It is used once.
type lowerer struct {
	src *source
	cat Catalog
	b   plan.Builder
	seg segment
	// params[k-1] records how $k is used.
	params []paramUse
	// ctes are the WITH queries in scope; outer is the enclosing query's
	// scope while a subquery is lowered (cte.go, subquery.go).
	ctes  []cteDef
	outer *scope
	// unpulled counts the enclosing queries with LIMIT 0 while one is
	// lowered: their rows are never pulled (gatingqual.go).
	unpulled int
	// corrNext asks the next selectStmt, a plain EXISTS or IN subquery's,
	// to let its WHERE and SELECT list name the enclosing query: those
	// names become outer references (scope.corr).
	corrNext bool
	// lateral counts the LATERAL items being lowered around the current
	// expression: inside one, any expression but an aggregate's
	// arguments may name the queries around it (lateral.go).
	lateral int
	// setLinks are the WHERE conjuncts' EXISTS and IN subqueries that
	// lower to Substrait subquery expressions (setExpr); any other is
	// refused where it stands (subLink).
	setLinks map[*pg_query.SubLink]setKind
	// scalarLinks are the scalar subqueries that lower to Substrait
	// ScalarSubquery expressions where they stand (markScalars).
	scalarLinks map[*pg_query.SubLink]bool
	// outerAggs are the aggregate calls inside subqueries that an
	// enclosing query computes (outeragg.go).
	outerAggs map[*pg_query.FuncCall]bool
	// now is the statement's time, taken once (now.go); zero until used.
	now time.Time
	// ownWhere is the WHERE as written while the SELECT's WHERE, with
	// HAVING conjuncts whereWithHaving moved into it, is lowered; nil
	// otherwise (falsewhere.go).
	ownWhere *ownWhere
	// whereEstimates are the WHERE conditions PostgreSQL estimates over
	// a relation though the lowered WHERE folded to FALSE with a moved
	// HAVING conjunct (havingestimate.go).
	whereEstimates map[plan.Rel][]expr.Expression
	// viewDepth counts the views being expanded around the one lowered
	// (view.go).
	viewDepth int
	// fromOf is the SELECT whose FROM is being lowered, for the joins
	// that look at the rest of it (joinremoval.go); nil outside one.
	fromOf *pg_query.SelectStmt
}

type paramUse struct {
	used bool
	list bool // UNNEST($k): a list parameter
	kind kind // scalar type, or list element type
	loc  int32
	// open holds the expressions of $k's uses that fix no type (IS
	// NULL): its type is still PostgreSQL's unknown, and the first use
	// that fixes one types them too (paramtype.go).
	open []*expr.DynamicParameter
}

// newLowerer starts a statement. Its builder works against substraitfn's
// collection, which declares the standard URNs without parsing their
// YAML: the calls are built by substraitfn (see call), never looked up.
func newLowerer(src *source, cat Catalog, seg segment) (*lowerer, error) {
	c, err := substraitfn.Collection()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInternal, err)
	}
	return &lowerer{src: src, cat: cat, b: plan.NewBuilder(c), seg: seg}, nil
}

// useParam records a use of $k as a list or a scalar of kind k, checking it
// agrees with the earlier uses.
func (l *lowerer) useParam(n int, list bool, k kind, loc int32) error {
	if n < 1 || n > maxParams {
		return fmt.Errorf("%w: there is no parameter $%d%s", ErrParam, n, l.src.at(loc))
	}
	for len(l.params) < n {
		l.params = append(l.params, paramUse{})
	}
	p := &l.params[n-1]
	if p.used && p.open != nil && !list {
		l.fixOpenParam(p, k)
	}
	if p.used && (p.list != list || p.kind != k) {
		return fmt.Errorf("%w: parameter %s used as both %s and %s%s", ErrParam, l.paramLabel(n), p.describe(), paramUse{list: list, kind: k}.describe(), l.src.at(loc))
	}
	*p = paramUse{used: true, list: list, kind: k, loc: loc}
	return nil
}

func (p paramUse) describe() string {
	if p.list {
		return p.kind.String() + "[]"
	}
	return p.kind.String()
}

// paramLabel spells $k as the caller wrote it.
func (l *lowerer) paramLabel(n int) string {
	if n >= 1 && n <= len(l.seg.names) {
		return ":" + l.seg.names[n-1]
	}
	return fmt.Sprintf("$%d", n)
}

// knownParam returns the kind $k already has as a scalar, if any.
func (l *lowerer) knownParam(n int) (kind, bool) {
	if n < 1 || n > len(l.params) || !l.params[n-1].used || l.params[n-1].list || l.params[n-1].open != nil {
		return kindUnknown, false
	}
	return l.params[n-1].kind, true
}

// paramExpr is $k as a scalar of kind k (substrait.md §6: a DynamicParameter with
// reference k). It is nullable: a caller may bind NULL.
func (l *lowerer) paramExpr(n int, k kind, loc int32) (expr.Expression, error) {
	if err := l.useParam(n, false, k, loc); err != nil {
		return nil, err
	}
	return &expr.DynamicParameter{OutputType: k.Type(true), ParameterReference: uint32(n)}, nil
}

// paramNames checks the numbering has no gaps and returns ParamNames.
func (l *lowerer) paramNames() ([]string, error) {
	n := max(len(l.params), len(l.seg.names))
	if n == 0 {
		return nil, nil
	}
	names := make([]string, n)
	for i := range n {
		if i >= len(l.params) || !l.params[i].used {
			return nil, fmt.Errorf("%w: parameter $%d is never used (parameters must be numbered 1..n)", ErrParam, i+1)
		}
		if p := l.params[i]; p.open != nil {
			return nil, fmt.Errorf("%w: could not determine data type of parameter %s%s", ErrParam, l.paramLabel(i+1), l.src.at(p.loc))
		}
		if i < len(l.seg.names) {
			names[i] = l.seg.names[i]
		}
	}
	return names, nil
}

// query wraps a lowered relation into a Query.
func (l *lowerer) query(root plan.Rel, names []string) (*Query, error) {
	// A constant that raises raises while planning, as in PostgreSQL
	// (constfold.go).
	if err := raiseConstants(root); err != nil {
		return nil, err
	}
	// So does one PostgreSQL's selectivity estimates evaluate
	// (estimatequal.go).
	if err := estimatedQuals(root, l.whereEstimates); err != nil {
		return nil, err
	}
	p, err := l.b.Plan(root, names)
	if err != nil {
		return nil, fmt.Errorf("%w: building plan: %w", ErrInvalid, err)
	}
	pb, err := p.ToProto()
	if err != nil {
		return nil, fmt.Errorf("%w: encoding plan: %w", ErrInvalid, err)
	}
	substraitfn.Finish(pb)
	pn, err := l.paramNames()
	if err != nil {
		return nil, err
	}
	return &Query{Plan: pb, ParamNames: pn}, nil
}

// call builds a standard scalar function, with the compound name and output
// type the standard YAML gives it.
func (l *lowerer) call(urn, name string, loc int32, args ...expr.Expression) (expr.Expression, error) {
	decided, args, err := pruneBool(name, args) // constfold.go
	if err != nil {
		return nil, fmt.Errorf("%w%s", err, l.src.at(loc))
	}
	if decided != nil {
		return decided, nil
	}
	f, err := substraitfn.Scalar(l.b.GetExprBuilder().Reg, urn, name, args...)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w%s", ErrType, name, err, l.src.at(loc))
	}
	return foldCall(name, f, args), nil
}
