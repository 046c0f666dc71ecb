package server

import (
	"cmp"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/priority"
)

// ErrConfig: a server option that cannot work (e.g. listening beyond
// localhost without authentication).
var ErrConfig = errkind.New(errkind.InvalidArgument, "server: bad configuration")

// Options configure a Server.
type Options struct {
	Mem memory.Allocator // IPC decoding of parameters (nil: memory.DefaultAllocator)
	// Auth: nil or empty serves without authentication, which Serve allows
	// only on a loopback address.
	Auth *Auth
	// TLS, if set, serves TLS (the CLI's -tls-cert, -tls-key).
	TLS *tls.Config
	// ResultTTL is how long a started result waits for its DoGet before it
	// is closed (0: 5 minutes).
	ResultTTL time.Duration
	// Logger gets internal errors with their details (nil: discarded).
	Logger *slog.Logger
	// PreparedTTL drops a prepared statement unused for this long (0: 1
	// hour).
	PreparedTTL time.Duration
	// TransactionTTL rolls back a transaction (BeginTransaction) idle
	// for this long (0: 10 minutes; the CLI's -transaction-ttl): a client
	// that died must not hold its snapshot and staged files for ever.
	TransactionTTL time.Duration
	// ShutdownGrace is how long Shutdown lets running calls finish before
	// it cancels them (0: 10 s).
	ShutdownGrace time.Duration
	// MaxRecvBytes is the largest message a client may send (0: 256 MiB):
	// bound parameters come as one Arrow batch, and 1M ids are 8 MB, over
	// gRPC's default of 4 MiB.
	MaxRecvBytes int
	// Files is the one directory COPY and CREATE TABLE AS may read and
	// write, every path resolved inside it (the CLI's -files DIR). Empty:
	// file access is refused, whatever the engine's own policy.
	Files string
	// FilesAllowHardLinks lets COPY open a file under Files that has more
	// than one hard link (the CLI's -files-allow-hardlinks); refused by
	// default, as such a link may lead to a file outside Files.
	FilesAllowHardLinks bool
	// MaxEndpoints is the most endpoints a take by bound ids is split
	// into (0: 8; 1: never split). See takesplit.go.
	MaxEndpoints int
	// SplitMinIDs is the fewest bound ids a take needs to be split
	// (0: 4096); below it one endpoint serves it.
	SplitMinIDs int
	// SplitBatchRows caps the batches of a split take's endpoints (0:
	// 65536 rows).
	SplitBatchRows int
	// Partitions is MaxEndpoints, read when MaxEndpoints is 0.
	//
	// Deprecated: use MaxEndpoints. "Partition" names the executor's
	// parallel streams; a take's endpoints are not those.
	Partitions int
	// PartitionMinIDs is SplitMinIDs, read when SplitMinIDs is 0.
	//
	// Deprecated: use SplitMinIDs.
	PartitionMinIDs int
	// PartitionBatchRows is SplitBatchRows, read when SplitBatchRows is 0.
	//
	// Deprecated: use SplitBatchRows.
	PartitionBatchRows int
	// Memory is the server's one memory budget in bytes, shared by every
	// statement and parameter upload (budget.go; the CLI's
	// -server-memory). 0: none, each statement bounded by the engine's
	// per-statement limit alone.
	Memory int64
	// AdmissionWait is how long a statement waits for its grant of
	// Memory before it fails with ResourceExhausted (0: 30 s; negative:
	// it does not wait).
	AdmissionWait time.Duration
	// StatementMinMemory is a heavy statement's grant, reserved when it is
	// admitted (0: Memory/32, at least 4MB, at most 64MB).
	StatementMinMemory int64
	// HeavyStatements is the most statements that sort, aggregate or join
	// run at once under Memory; the others wait for admission (0: 2 a
	// core).
	HeavyStatements int
	// NoPriority turns off the priority of light calls over heavy
	// statements (priority.go; the CLI's -light-priority=false): heavy
	// statements then never park, and share the cores with every call.
	NoPriority bool
	// HeavyRunning bounds the goroutines of heavy statements that run at
	// once under the priority (package priority's leases), so that a Go
	// processor beyond them is free for light calls: 0, Cores; negative,
	// no bound.
	HeavyRunning int
	// Location is the URI clients reach the server at, advertised as
	// the location of a multi-endpoint result's endpoints (location.go;
	// the CLI's -advertise), e.g. grpc+tls://db.example.com:31337 behind
	// NAT. Empty: the listener's own address.
	Location string
	// Cores is the CPUs the server runs on, the unit of HeavyStatements'
	// and HeavyRunning's defaults (0: GOMAXPROCS when New runs). The CLI
	// sets it before it raises GOMAXPROCS above the cores (-light-procs).
	Cores int

	// now is the clock prepared statements' idle time is read on (nil:
	// time.Now): tests move it by hand instead of sleeping past a TTL.
	now func() time.Time
}

// Server serves one engine.DB over Flight SQL. Safe for concurrent use;
// every call runs as its own statement under the table's commit rules.
type Server struct {
	flightsql.BaseServer
	db      *engine.DB
	opt     Options
	mem     memory.Allocator
	log     *slog.Logger
	results *results
	splits  *splitTakes    // takes split into several endpoints
	budget  *budget        // nil: no server budget (Options.Memory)
	heap    *heapWatch     // the budget's watch of the live heap
	gate    *priority.Gate // light calls ahead of heavy statements (priority.go); nil: Options.NoPriority

	location atomic.Value // string: endpointLocations' URI, set by Serve

	uploadBytes   atomic.Int64 // held by parameter uploads and bound parameters
	uploadSpilled atomic.Int64 // in the files of spilled uploads (on disk, not in the budget)

	mu       sync.Mutex
	prepared map[string]*prepared
	txns     map[string]*txn // open transactions by id (transactions.go)
	grpc     *grpc.Server
}

// New returns a Server of db.
func New(db *engine.DB, opt Options) (*Server, error) {
	if opt.ResultTTL <= 0 {
		opt.ResultTTL = 5 * time.Minute
	}
	if opt.Location != "" {
		if err := checkLocation(opt.Location); err != nil {
			return nil, err
		}
	}
	s := &Server{db: db, opt: opt, mem: opt.Mem, log: opt.Logger, results: newResults(opt.ResultTTL),
		splits: newSplitTakes(opt.ResultTTL), prepared: map[string]*prepared{}, txns: map[string]*txn{}}
	if s.mem == nil {
		s.mem = memory.DefaultAllocator
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.Alloc = s.mem
	if err := s.registerSqlInfo(); err != nil {
		return nil, err
	}
	if opt.AdmissionWait == 0 {
		opt.AdmissionWait = 30 * time.Second
	}
	if opt.Cores <= 0 {
		opt.Cores = runtime.GOMAXPROCS(0)
	}
	if opt.Memory > 0 {
		s.budget = newBudget(opt.Memory, opt.StatementMinMemory, opt.AdmissionWait, cmp.Or(opt.HeavyStatements, 2*opt.Cores))
		s.heap = s.budget.watchHeap()
	}
	if opt.MaxRecvBytes <= 0 {
		opt.MaxRecvBytes = 256 << 20
		if opt.Memory > 0 {
			// gRPC holds a message whole before the server sees it: one
			// message must not pass the budget on its own.
			opt.MaxRecvBytes = int(min(int64(opt.MaxRecvBytes), max(opt.Memory/4, 1<<20)))
		}
	}
	if opt.now == nil {
		opt.now = time.Now
	}
	if opt.PreparedTTL <= 0 {
		opt.PreparedTTL = time.Hour
	}
	if opt.TransactionTTL <= 0 {
		opt.TransactionTTL = 10 * time.Minute
	}
	if opt.ShutdownGrace <= 0 {
		opt.ShutdownGrace = 10 * time.Second
	}
	if opt.MaxEndpoints == 0 {
		opt.MaxEndpoints = opt.Partitions
	}
	if opt.SplitMinIDs == 0 {
		opt.SplitMinIDs = opt.PartitionMinIDs
	}
	if opt.SplitBatchRows == 0 {
		opt.SplitBatchRows = opt.PartitionBatchRows
	}
	if opt.MaxEndpoints <= 0 {
		opt.MaxEndpoints = 8
	}
	opt.MaxEndpoints = min(opt.MaxEndpoints, maxEndpoints)
	if opt.SplitMinIDs <= 0 {
		opt.SplitMinIDs = 4096
	}
	if opt.SplitBatchRows <= 0 {
		opt.SplitBatchRows = access.DefaultMaxTaskRows
	}
	s.opt = opt
	var (
		unary  []grpc.UnaryServerInterceptor
		stream []grpc.StreamServerInterceptor
	)
	if opt.Auth.enabled() {
		v := newValidator(*opt.Auth)
		mw := flight.CreateServerBasicAuthMiddleware(v)
		// The limiter is outside the middleware: it answers a refused
		// Handshake, or a call with a token from a refused address, before
		// any password or token is looked at.
		lim := newAuthLimiter(opt.Auth, v, s.log)
		unary = append(unary, lim.unary, mw.Unary)
		stream = append(stream, lim.stream, mw.Stream)
	}
	if !opt.NoPriority {
		s.gate = priority.NewGate(priority.Options{Running: max(cmp.Or(opt.HeavyRunning, opt.Cores), 0)})
		unary = append(unary, priorityUnary(s.gate))
		stream = append(stream, priorityStream(s.gate))
	}
	stream = append(stream, afterCallMiddleware().Stream) // innermost
	gopts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(opt.MaxRecvBytes),
		grpc.ChainUnaryInterceptor(unary...),
		grpc.ChainStreamInterceptor(stream...),
	}
	if opt.TLS != nil {
		gopts = append(gopts, grpc.Creds(credentials.NewTLS(opt.TLS)))
	}
	s.grpc = grpc.NewServer(gopts...)
	flight.RegisterFlightServiceServer(s.grpc, &service{FlightServer: flightsql.NewFlightServerWithAllocator(s, s.mem), s: s})
	return s, nil
}

// Serve serves on lis until Shutdown. Without authentication it refuses a
// listener that is not on a loopback address: anyone who can reach the
// port could read and change every table.
func (s *Server) Serve(lis net.Listener) error {
	if !s.opt.Auth.enabled() && !loopback(lis.Addr()) {
		return fmt.Errorf("%w: listening on %s (beyond localhost) requires authentication (users or tokens)", ErrConfig, lis.Addr())
	}
	s.location.Store(s.ownLocation(lis.Addr()))
	return s.grpc.Serve(lis)
}

// Shutdown stops accepting calls, gives the running ones
// Options.ShutdownGrace to finish (a client that stopped reading would
// hold a DoGet forever), then cancels them, closes every result nobody
// read and rolls back every open transaction. Serve returns nil once it
// is done.
func (s *Server) Shutdown() {
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(s.opt.ShutdownGrace):
		s.grpc.Stop()
		<-done
	}
	s.results.closeAll()
	s.splits.closeAll()
	s.dropAllPrepared()
	s.rollbackAllTxns() // after the results: a result holds its transaction
	s.heap.close()
}

// loopback reports whether addr is a loopback address.
func loopback(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// CheckAddr is Serve's rule for an address before listening on it: a host
// beyond localhost requires authentication.
func CheckAddr(hostport string, auth *Auth) error {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return fmt.Errorf("%w: address %q: %w", ErrConfig, hostport, err)
	}
	if auth.enabled() || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w: listening on %s (beyond localhost) requires authentication (users or tokens)", ErrConfig, hostport)
}
