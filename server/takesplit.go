package server

import (
	"context"
	"crypto/rand"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/table"
)

// A take split into endpoints: GetFlightInfo of a statement of the take
// shape (plan.MatchTake, through takematch.go) with at least
// Options.SplitMinIDs ids resolves the ids to their rows through the
// engine's index access layer (DB.PlanTake), which groups them by owning
// fragment, and returns one endpoint per group of fragments. Each
// endpoint's DoGet takes its group's rows (access.ExecuteTake, one task
// at a time) and shapes them into the statement's own output schema; ord
// in every row restores the driving order. (Not "partitions": in exec
// those are a plan's parallel streams, in rowmap the stable partitions of
// the row map; ADBC's client API calls endpoints partitions.)
//
//	GetFlightInfo: plan, split into n groups         DoGet of ticket i (any order, concurrently)
//	  ------------------------------------> planned ---------------> endpoint i streaming --end--> endpoint i read
//	                                           |                                              |
//	                                           | Cancel, TTL expiry,                          | all n read
//	                                           v server shutdown                              v
//	                                        dropped <--------------------------------------------
//
// What the server keeps per take is the plan (12 bytes an id) and the
// snapshot it was planned on, until every endpoint has been read, the
// take is cancelled, or Options.ResultTTL passes (which is also each
// ticket's expiry): bounded in time and by the take's size.

// splitTake is one take split into endpoints, between GetFlightInfo and
// its last DoGet.
type splitTake struct {
	t       *table.Table
	schema  *arrow.Schema // the statement's output schema, every endpoint's
	shape   *takeShape
	columns []string // what ExecuteTake reads: the table columns of shape.out
	plan    *access.TakePlan
	groups  []endpointGroup
	// missing are the rows of ids with no live row (LEFT JOIN only), read
	// with endpoint 0: their positions in the bound list and the ids.
	missingOrd []uint64
	missingID  []int64

	handle [16]byte        // its key in splitTakes, set by add
	ctx    context.Context // cancelled by Cancel, expiry, shutdown
	cancel context.CancelFunc
	expiry *time.Timer

	mu    sync.Mutex
	state []endpointState
	left  int // endpoints not read to the end
}

// endpointGroup is one endpoint: its fragments and the plan's tasks over them.
type endpointGroup struct {
	frags []uint32
	tasks []int
	rows  int
}

type endpointState int

const (
	endpointPending endpointState = iota
	endpointReading
	endpointRead
)

// splitTakes holds the split takes by handle.
type splitTakes struct {
	ttl time.Duration
	key []byte // signs tickets; drawn per server

	mu sync.Mutex
	m  map[[16]byte]*splitTake
}

func newSplitTakes(ttl time.Duration) *splitTakes {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return &splitTakes{ttl: ttl, key: key, m: map[[16]byte]*splitTake{}}
}

// add registers p and returns the signed tickets of its endpoints.
func (ps *splitTakes) add(p *splitTake) [][]byte {
	var h [16]byte
	_, _ = rand.Read(h[:])
	p.handle = h
	p.state = make([]endpointState, len(p.groups))
	p.left = len(p.groups)
	exp := time.Now().Add(ps.ttl)
	ps.mu.Lock()
	ps.m[h] = p
	p.expiry = time.AfterFunc(ps.ttl, func() { ps.drop(h) })
	ps.mu.Unlock()
	tickets := make([][]byte, len(p.groups))
	for i, g := range p.groups {
		t := endpointTicket{handle: h, endpoint: uint32(i), endpoints: uint32(len(p.groups)), expiry: exp, frags: g.frags}
		tickets[i] = t.encode(ps.key)
	}
	return tickets
}

// begin checks a ticket and hands its endpoint to a DoGet: an endpoint
// reads once, and its group must be the one the take planned.
func (ps *splitTakes) begin(b []byte) (*splitTake, uint32, error) {
	t, err := decodeTicket(ps.key, b, time.Now())
	if err != nil {
		return nil, 0, status.Error(codes.InvalidArgument, err.Error())
	}
	if t.expired {
		return nil, 0, status.Error(codes.NotFound, "endpoint ticket expired (Options.ResultTTL after its GetFlightInfo)")
	}
	ps.mu.Lock()
	p, ok := ps.m[t.handle]
	ps.mu.Unlock()
	if !ok {
		return nil, 0, status.Error(codes.NotFound, "no such split take: it was read already, cancelled, or expired")
	}
	if int(t.endpoints) != len(p.groups) || !equalFrags(t.frags, p.groups[t.endpoint].frags) {
		// Signed by this server yet not this take's: a bug, not a client's.
		return nil, 0, status.Errorf(codes.Internal, "endpoint ticket %d of %d does not match its take", t.endpoint, t.endpoints)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state[t.endpoint] != endpointPending {
		return nil, 0, status.Errorf(codes.NotFound, "endpoint %d of %d was read already or is being read", t.endpoint, t.endpoints)
	}
	p.state[t.endpoint] = endpointReading
	return p, t.endpoint, nil
}

// end records how an endpoint's DoGet ended: read to the end, it is done
// (and the take is dropped after its last endpoint); otherwise it may
// be read again while the take lives.
func (ps *splitTakes) end(p *splitTake, ep uint32, complete bool) {
	p.mu.Lock()
	if complete {
		p.state[ep] = endpointRead
		p.left--
	} else {
		p.state[ep] = endpointPending
	}
	last := p.left == 0
	p.mu.Unlock()
	if last {
		ps.drop(p.handle)
	}
}

// cancel drops the take a ticket names; it reports whether it was known.
func (ps *splitTakes) cancelTicket(b []byte) bool {
	t, err := decodeTicket(ps.key, b, time.Now())
	if err != nil {
		return false
	}
	return ps.drop(t.handle)
}

// drop forgets a take and cancels its running reads.
func (ps *splitTakes) drop(h [16]byte) bool {
	ps.mu.Lock()
	p, ok := ps.m[h]
	delete(ps.m, h)
	ps.mu.Unlock()
	if ok {
		p.expiry.Stop()
		p.cancel()
	}
	return ok
}

func (ps *splitTakes) closeAll() {
	ps.mu.Lock()
	hs := make([][16]byte, 0, len(ps.m))
	for h := range ps.m {
		hs = append(hs, h)
	}
	ps.mu.Unlock()
	for _, h := range hs {
		ps.drop(h)
	}
}

func (ps *splitTakes) len() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return len(ps.m)
}

func equalFrags(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// split tries to split a statement's take into endpoints: ok is false when it is not of
// the take shape, binds too few ids, its rows sit in one fragment, or its
// output is not what a take produces (then it runs as one endpoint). The
// statement already planned (its output schema is schema), so its errors
// were reported.
func (s *Server) split(ctx context.Context, planBytes []byte, sqlText string, params []any, schema *arrow.Schema) (*splitTake, bool, error) {
	if s.opt.MaxEndpoints == 1 || schema == nil {
		return nil, false, nil
	}
	// Most statements bind no large id list: they are not looked at
	// further (lowering SQL to Substrait again costs about a millisecond).
	large := false
	for _, v := range params {
		ids, ok := idList(v)
		large = large || ok && len(ids) >= s.opt.SplitMinIDs
	}
	if !large {
		return nil, false, nil
	}
	// SQL is matched on its lowered plan as it is, never encoded: its
	// indented JSON (what this once matched) is O(depth²) bytes, outside
	// any budget (TestSplitAllocationBounded).
	var pb *substraitpb.Plan
	if sqlText != "" {
		p, _, err := s.db.SubstraitPlanOf(ctx, sqlText)
		if err != nil {
			return nil, false, nil // not one SELECT
		}
		pb = p
	} else {
		pb = decodePlan(planBytes)
	}
	shape := matchTake(pb)
	if shape == nil || shape.param > len(params) || len(shape.out) != schema.NumFields() {
		return nil, false, nil
	}
	ids, ok := idList(params[shape.param-1])
	if !ok || len(ids) < s.opt.SplitMinIDs {
		return nil, false, nil
	}
	t, err := s.db.Table(ctx, shape.table)
	if err != nil {
		return nil, false, err
	}
	columns, ok := takeColumns(shape, schema, t.Schema())
	if !ok {
		return nil, false, nil
	}
	// Negative ids name no row (as in the engine's take); the rest are
	// planned, their positions mapped back.
	pos := make([]uint64, 0, len(ids))
	uids := make([]uint64, 0, len(ids))
	var missing []uint64
	for i, id := range ids {
		if id < 0 {
			missing = append(missing, uint64(i))
			continue
		}
		pos = append(pos, uint64(i))
		uids = append(uids, uint64(id))
	}
	plan, err := s.db.PlanTake(ctx, t, uids, access.TakeOptions{MaxTaskRows: s.opt.SplitBatchRows})
	if err != nil {
		return nil, false, err
	}
	for k := range plan.Tasks {
		for j, o := range plan.Tasks[k].Ords {
			plan.Tasks[k].Ords[j] = pos[o]
		}
	}
	for _, o := range plan.Missing {
		missing = append(missing, pos[o])
	}
	groups := groupTasks(plan.Tasks, s.opt.MaxEndpoints)
	if len(groups) < 2 {
		return nil, false, nil
	}
	p := &splitTake{t: t, schema: schema, shape: shape, columns: columns, plan: plan, groups: groups}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	if !shape.inner {
		slices.Sort(missing)
		p.missingOrd = missing
		p.missingID = make([]int64, len(missing))
		for i, o := range missing {
			p.missingID[i] = ids[o]
		}
	}
	return p, true, nil
}

// groupTasks cuts the tasks (sorted by fragment) into at most n groups of
// whole fragments with about as many rows each.
func groupTasks(tasks []access.TakeTask, n int) []endpointGroup {
	total := 0
	for _, k := range tasks {
		total += len(k.Ords)
	}
	var groups []endpointGroup
	var g endpointGroup
	done := 0
	for i, k := range tasks {
		if len(g.frags) == 0 || g.frags[len(g.frags)-1] != k.Fragment {
			// A new fragment starts: close the group when it holds its
			// share of the rows.
			if g.rows > 0 && done*n >= total*(len(groups)+1) && len(groups) < n-1 {
				groups = append(groups, g)
				g = endpointGroup{}
			}
			g.frags = append(g.frags, k.Fragment)
		}
		g.tasks = append(g.tasks, i)
		g.rows += len(k.Ords)
		done += len(k.Ords)
	}
	if len(g.frags) > 0 {
		groups = append(groups, g)
	}
	return groups
}

// idList reads the bound ids: a bigint list (engine.ParamsFromArrow's
// []int64, or one id). Other forms (NULLs among the ids, text) are not
// split.
func idList(v any) ([]int64, bool) {
	switch x := v.(type) {
	case []int64:
		return x, true
	case int64:
		return []int64{x}, true
	}
	return nil, false
}

// takeColumns checks that the take's output, shaped, has the statement's
// schema (each table column of the same type; ord and rowid bigint), and
// returns the table columns ExecuteTake reads: those of shape.out, and
// _rowid when v.rowid is an output.
func takeColumns(shape *takeShape, schema, tschema *arrow.Schema) ([]string, bool) {
	var cols []string
	seen := map[string]bool{}
	use := func(name string) {
		if !seen[name] {
			seen[name] = true
			cols = append(cols, name)
		}
	}
	for i, o := range shape.out {
		want := schema.Field(i).Type
		switch o.kind {
		case outOrd, outRowID:
			if !arrow.TypeEqual(want, arrow.PrimitiveTypes.Int64) {
				return nil, false
			}
			if o.kind == outRowID {
				use(table.RowID)
			}
		case outTable:
			fs, _ := tschema.FieldsByName(o.name)
			if len(fs) != 1 || !convertible(fs[0].Type, want) {
				return nil, false
			}
			use(o.name)
		}
	}
	return cols, true
}

// convertible: a taken column of type have serves an output of type want
// as it is, or (the system columns, uint64 in the table and bigint in
// SQL) converted.
func convertible(have, want arrow.DataType) bool {
	return arrow.TypeEqual(have, want) ||
		(have.ID() == arrow.UINT64 && want.ID() == arrow.INT64)
}

// splitInfo registers a take and returns its FlightInfo: one endpoint a
// group of fragments, and the exact number of rows.
func (s *Server) splitInfo(p *splitTake, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	rows := int64(0)
	for _, g := range p.groups {
		rows += int64(g.rows)
	}
	rows += int64(len(p.missingOrd))
	info := &flight.FlightInfo{FlightDescriptor: desc, Schema: flight.SerializeSchema(p.schema, s.mem),
		TotalRecords: rows, TotalBytes: -1}
	for _, tk := range s.splits.add(p) {
		ticket, err := flightsql.CreateStatementQueryTicket(tk)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "make ticket: %v", err)
		}
		// Each endpoint says where it is read (location.go), so a client
		// may hand it to another process or machine.
		info.Endpoint = append(info.Endpoint, &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: ticket}, Location: s.endpointLocations()})
	}
	return info, nil
}
