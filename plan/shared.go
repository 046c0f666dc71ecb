package plan

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/stablerow/stablerow/exec"
	"github.com/substrait-io/substrait-go/v8/extensions"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"google.golang.org/protobuf/proto"
)

// Shared subplans: a relation that occurs more than once in a plan, byte
// for byte the same Substrait (a WITH query the SQL front end lowered at
// each reference, Q15's revenue0; a scalar subquery that repeats the outer
// FROM and WHERE, Q11's; the same repetition in an outside producer's
// plan), is compiled once into an exec.SharedPlan, run once per execution
// and read by one exec.SharedExec per occurrence:
//
//	Join                              SharedScopeExec (root)
//	├─ Agg(Filter(Read l))   ──▶        Join
//	└─ Agg(Agg(Filter(Read l)))         ├─ SharedExec #1 ── Agg(Filter(Read l))
//	                                    └─ Agg(SharedExec #1)
//
// Byte-equal Substrait is the same relation: a plan has one extension
// registry (function anchors), no outer references once its subqueries
// are unnested (subquery.go), and no volatile function (every function in
// exec/func.go is a function of its arguments; a random() would have to
// be excluded here). A bound parameter has one value per execution.
//
// Only relations worth a buffer are shared: those with a join, an
// aggregation or a set operation below them; a plain scan with a filter is
// cheaper to read again than to hold. Occurrences inside an occurrence
// already counted are not counted (they run once, with it), so every
// shared plan has two consumers or more.
//
// Planning takes two passes when there are repeats: the first compiles the
// plan as usual and records, per repeated relation, the union of the
// columns its occurrences need and whether any forbids a take (hint); the
// second compiles each repeated relation once for that union. An
// occurrence the shared compile does not serve (it needs a column the
// union left out, or the compile used a take it forbids) is compiled on its
// own, so sharing never changes a plan's answer, only its work.
type sharing struct {
	key map[splan.Rel]string // the relations to share: fingerprint by occurrence
	// recording: the first pass, which only records needs and hints.
	recording bool
	need      map[string][]bool // nil entry: every column
	noTake    map[string]bool
	done      map[string]*sharedRel
	plans     []*exec.SharedPlan
}

// sharedRel is a relation compiled once for its occurrences.
type sharedRel struct {
	plan   *exec.SharedPlan
	out    *rel
	need   []bool
	noTake bool
}

// findShared returns the repeated relations of the plan under root, nil
// when there are none (or sharing is off).
func findShared(root splan.Rel, opt Options) *sharing {
	if opt.DisableSharing {
		return nil
	}
	f := &fingerprints{key: map[splan.Rel]string{}, worth: map[splan.Rel]bool{}, sum: map[splan.Rel][sha256.Size]byte{}}
	f.walk(root)
	if f.own < 2 {
		// Each occurrence of a repeated relation holds a join, an
		// aggregation or a set operation of its own: with fewer than
		// two nothing repeats, and nothing is hashed (a long IN list's
		// literal would be encoded only to be hashed).
		return nil
	}
	for _, r := range f.order {
		sum, ok := f.hash(r, r.GetInputs())
		if !ok {
			f.worth[r] = false // not shared: compiled at each occurrence as before
			continue
		}
		f.sum[r] = sum
		if f.worth[r] {
			f.key[r] = string(sum[:])
		}
	}
	count := map[string]int{}
	var visit func(r splan.Rel)
	visit = func(r splan.Rel) {
		if f.worth[r] {
			k := f.key[r]
			count[k]++
			if count[k] > 1 {
				return // runs with its first occurrence
			}
		}
		for _, in := range r.GetInputs() {
			visit(in)
		}
	}
	visit(root)
	s := &sharing{key: map[splan.Rel]string{}, need: map[string][]bool{}, noTake: map[string]bool{}, done: map[string]*sharedRel{}}
	for r, k := range f.key {
		if f.worth[r] && count[k] > 1 {
			s.key[r] = k
		}
	}
	if len(s.key) == 0 {
		return nil
	}
	return s
}

// fingerprints hashes every relation's Substrait (deterministic protobuf
// encoding) and marks those worth sharing.
//
// The hash is built bottom-up, each relation's from its own encoding (its
// inputs replaced by one placeholder) and its inputs' hashes, so equal
// hashes still mean byte-equal subtrees, and each relation is encoded once:
// encoding every relation's whole subtree was quadratic in the plan's
// depth (1000 UNIONs encoded 500,000 relations, issue 32).
type fingerprints struct {
	key   map[splan.Rel]string
	worth map[splan.Rel]bool
	sum   map[splan.Rel][sha256.Size]byte // every relation's hash
	hole  splan.Rel                       // the placeholder input
	order []splan.Rel                     // every relation, inputs first
	own   int                             // joins, aggregations and set operations seen
}

func (f *fingerprints) walk(r splan.Rel) {
	w := false
	switch r.(type) {
	case *splan.JoinRel, *splan.CrossRel, *splan.AggregateRel, *splan.SetRel:
		w = true
		f.own++
	}
	for _, in := range r.GetInputs() {
		f.walk(in)
		w = w || f.worth[in]
	}
	f.worth[r] = w
	f.order = append(f.order, r)
}

// hash is the hash of r's subtree: of r's encoding with placeholder
// inputs, its length, and the hashes of its inputs in order. ok is false
// when r or an input cannot be encoded (not shared: compiled at each
// occurrence as before).
func (f *fingerprints) hash(r splan.Rel, ins []splan.Rel) (sum [sha256.Size]byte, ok bool) {
	own := r
	if len(ins) > 0 {
		if f.hole == nil {
			f.hole = splan.NewBuilder(&extensions.Collection{}).NamedScan([]string{"input"}, types.NamedStruct{})
		}
		holes := make([]splan.Rel, len(ins))
		for i := range holes {
			holes[i] = f.hole
		}
		c, err := r.Copy(holes...)
		if err != nil {
			return sum, false
		}
		own = c
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(own.ToProto())
	if err != nil {
		return sum, false
	}
	h := sha256.New()
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
	for _, in := range ins {
		s, ok := f.sum[in]
		if !ok {
			return sum, false
		}
		h.Write(s[:])
	}
	h.Sum(sum[:0])
	return sum, true
}

// compileShared compiles an occurrence of a repeated relation: in the
// first pass as usual, recording what it needs; in the second, as a
// consumer of the relation's one compile.
func (p *planner) compileShared(r splan.Rel, k string, need []bool, h hint) (*rel, error) {
	s := p.share
	if s.recording {
		if old, ok := s.need[k]; !ok {
			s.need[k] = cloneNeed(need)
		} else if old != nil {
			s.need[k] = unionNeed(old, need)
		}
		s.noTake[k] = s.noTake[k] || h.noTake
		return p.compileRel(r, need, h)
	}
	d, ok := s.done[k]
	if !ok {
		un, seen := s.need[k]
		if !seen {
			un = need
		}
		hs := hint{noTake: s.noTake[k] || h.noTake}
		out, err := p.compileRel(r, un, hs)
		if err != nil {
			return nil, err
		}
		sp := exec.NewSharedPlan(len(s.plans)+1, out.node)
		s.plans = append(s.plans, sp)
		d = &sharedRel{plan: sp, out: out, need: un, noTake: hs.noTake}
		s.done[k] = d
	}
	if !subsetNeed(need, d.need) || (h.noTake && !d.noTake) || !servesNeed(d.out, need) {
		return p.compileRel(r, need, h)
	}
	cols := make([]int, len(d.out.cols))
	for i, c := range d.out.cols {
		cols[i] = -1
		if needs(need, i) {
			cols[i] = c
		}
	}
	return &rel{node: d.plan.NewConsumer(), cols: cols, names: d.out.names}, nil
}

// finish counts the consumers of the shared plans the final tree holds
// (exec.BindShared), runs their inputs in parallel (merged into one stream
// each: a consumer is one partition; the input is set in place, so every
// consumer reads the one parallel plan whatever its parent) and scopes
// their runs to each execution of root.
func (s *sharing) finish(root exec.Node, opt Options) (exec.Node, error) {
	if s == nil || len(s.plans) == 0 {
		return root, nil
	}
	plans := exec.BindShared(root)
	if len(plans) == 0 {
		return root, nil
	}
	if opt.Threads > 1 {
		pp := &parallelPlanner{threads: opt.Threads, memoryLimited: opt.MemoryLimited}
		for _, sp := range plans {
			in := sp.Input()
			part, err := pp.partitioned(in)
			if err != nil {
				return nil, err
			}
			one, err := pp.single(in, part)
			if err != nil {
				return nil, err
			}
			if err := sp.SetInput(one); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrInternal, err)
			}
		}
	}
	return exec.NewSharedScopeExec(root, plans), nil
}

func cloneNeed(need []bool) []bool {
	if need == nil {
		return nil
	}
	return append([]bool(nil), need...)
}

// unionNeed is a ∪ b (nil: every column).
func unionNeed(a, b []bool) []bool {
	if a == nil || b == nil {
		return nil
	}
	out := make([]bool, max(len(a), len(b)))
	for i := range out {
		out[i] = needs(a, i) || needs(b, i)
	}
	return out
}

// subsetNeed reports a ⊆ b.
func subsetNeed(a, b []bool) bool {
	if b == nil {
		return true
	}
	if a == nil {
		return false
	}
	for i, x := range a {
		if x && !needs(b, i) {
			return false
		}
	}
	return true
}

// servesNeed reports whether out has a column for every needed field.
func servesNeed(out *rel, need []bool) bool {
	for i, c := range out.cols {
		if needs(need, i) && c < 0 {
			return false
		}
	}
	return true
}
