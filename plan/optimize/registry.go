package optimize

import (
	"sync"

	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
)

// anchorBase offsets the anchors of the functions the pass declares (the
// AND of a join condition it assembles) above any a producer writes.
//
// The pass never declares a function in the plan's own extension set:
// substrait-go's set gives a new declaration the anchor "number of
// declarations + 1", which is an anchor the plan already uses whenever
// its anchors are not 1..n, and overwrites what that anchor named (difftest
// seed 1 case 43: the AND took bool_and's anchor, and the aggregate became
// "unsupported aggregate function: and@bool"). Its own set's anchors are
// offset instead, so a relation's encoding (shared.go hashes it) never
// confuses one with a plan's.
const anchorBase = 1 << 31

// ownSet is an extension set whose anchors start at anchorBase.
type ownSet struct{ extensions.Set }

func (s ownSet) GetFuncAnchor(id extensions.ID) uint32 {
	return anchorBase + s.Set.GetFuncAnchor(id)
}

func (s ownSet) DecodeFunc(anchor uint32) (extensions.ID, bool) {
	if anchor < anchorBase {
		return extensions.ID{}, false
	}
	return s.Set.DecodeFunc(anchor - anchorBase)
}

func (s ownSet) LookupScalarFunction(anchor uint32, c *extensions.Collection) (*extensions.ScalarFunctionVariant, bool) {
	if anchor < anchorBase {
		return nil, false
	}
	return s.Set.LookupScalarFunction(anchor-anchorBase, c)
}

// ownRegistry is the registry the pass declares its functions in: a fresh
// ownSet over stablerow's collection, once per process (a set is not safe
// for concurrent use: guarded by ownMu).
var (
	ownMu       sync.Mutex
	ownRegistry = sync.OnceValues(func() (expr.ExtensionRegistry, error) {
		c, err := substraitfn.Collection()
		if err != nil {
			return expr.ExtensionRegistry{}, err
		}
		return expr.NewExtensionRegistry(ownSet{extensions.NewSet()}, c), nil
	})
)
