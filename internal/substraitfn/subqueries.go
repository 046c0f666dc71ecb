package substraitfn

import (
	"fmt"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// RootFromProto reads p's one root relation as FromProto reads a plan
// (against Collection, declarations by simple name), subquery expressions
// included (ReadRoot). The engine never needs it (the optimizer's first
// pass, Decorrelate, leaves no subquery in the proto it reads); a test
// that reads the SQL front end's plan back does.
func RootFromProto(p *substraitpb.Plan) (rel splan.Rel, names []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			rel, names, err = nil, nil, fmt.Errorf("%w (%T)", errLightPanic, r)
		}
	}()
	c, err := Collection()
	if err != nil {
		return nil, nil, err
	}
	if c, err = withPlanURNs(c, p); err != nil {
		return nil, nil, err
	}
	return ReadRoot(simpleNames(p), c)
}

// ReadRoot reads p's one root relation against c, subquery expressions
// included: substrait-go's FromProto reads those only with a subquery
// converter, which it does not register. It returns the relation and the
// root's names.
func ReadRoot(p *substraitpb.Plan, c *extensions.Collection) (splan.Rel, []string, error) {
	set, err := extensions.GetExtensionSet(p, c)
	if err != nil {
		return nil, nil, err
	}
	reg := expr.NewExtensionRegistry(set, c)
	reg.SetSubqueryConverter(&splan.ExpressionConverter{ExtensionRegistry: reg})
	if rels := p.GetRelations(); len(rels) != 1 || rels[0].GetRoot() == nil {
		return nil, nil, fmt.Errorf("substraitfn: want one root relation, have %d relations", len(rels))
	}
	root := p.GetRelations()[0].GetRoot()
	rel, err := splan.RelFromProto(root.GetInput(), reg)
	if err != nil {
		return nil, nil, err
	}
	return rel, root.GetNames(), nil
}
