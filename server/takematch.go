package server

import (
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/stablerow/stablerow/plan"
)

// Which statements a server splits into endpoints is the planner's
// answer: plan.MatchTake (plan/takeshape.go, where the take shape has its
// one matcher and its description). This file only reads a statement's
// plan bytes and holds MatchTake's answer as the split take uses it.

// outKind is what an output column of the take shape holds.
type outKind = plan.TakeOutKind

const (
	outOrd   = plan.TakeOrd   // v.ord: the 1-based position of the id in the bound list
	outRowID = plan.TakeRowID // v.rowid: the bound id
	outTable = plan.TakeTable // a column of the table (user or system)
)

type outCol struct {
	kind outKind
	name string // the table column, for outTable
}

// takeShape is a matched statement.
type takeShape struct {
	table string
	param int  // the anchor ($k) of the bound ids
	inner bool // INNER JOIN: ids with no row give no row; LEFT: a row of NULLs
	out   []outCol
}

// decodePlan reads a Substrait plan as protobuf binary, else protobuf
// JSON; nil when it is neither.
func decodePlan(data []byte) *substraitpb.Plan {
	var p substraitpb.Plan
	if err := proto.Unmarshal(data, &p); err == nil && len(p.GetRelations()) > 0 {
		return &p
	}
	p.Reset()
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, &p); err == nil {
		return &p
	}
	return nil
}

// matchTake is plan.MatchTake; nil when p is not of the take shape.
func matchTake(p *substraitpb.Plan) *takeShape {
	s := plan.MatchTake(p)
	if s == nil {
		return nil
	}
	out := make([]outCol, len(s.Out))
	for i, o := range s.Out {
		out[i] = outCol{kind: o.Kind, name: o.Name}
	}
	return &takeShape{table: s.Table, param: s.Param, inner: s.Inner, out: out}
}
