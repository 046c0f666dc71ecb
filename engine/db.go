package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/fileio"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// Options configure a DB.
type Options struct {
	Mem            memory.Allocator // nil: memory.DefaultAllocator
	BatchSize      int              // 0: exec.DefaultBatchSize
	DisableIndexes bool             // plan without indexes (metamorphic checks)
	// DisableSharing plans a repeated relation (a WITH query read twice)
	// at each occurrence instead of once (plan.Options.DisableSharing):
	// the before of a benchmark, a check that sharing changes no answer.
	DisableSharing bool
	// DisableRollup plans grouping sets as their expansion (every input
	// row aggregated once per set) instead of rolled up from the finest
	// set (plan.Options.DisableRollup): the before of a benchmark.
	DisableRollup bool
	Table         table.Options // write options of every table
	// ProbeBatch is TakeByKeyExec's keys per index probe (0: default).
	ProbeBatch int
	// Workers is the number of tasks maintenance commands (VACUUM FULL's
	// compaction, CLUSTER, CREATE / OPTIMIZE INDEX and REINDEX, bulk
	// takes) run at once (0: GOMAXPROCS).
	Workers int
	// Create makes the database directory (and its parents) when it does
	// not exist. Without it Open of a missing directory fails with
	// ErrNoDatabase: a mistyped path must not become a new empty database.
	// On S3 it marks the prefix as a database (the bucket must exist).
	Create bool
	// S3 tunes the store of an s3:// database (parallelism, coalescing,
	// retries): an s3store.Options, which the "s3" scheme package s3db
	// registers reads (nil: the defaults; a nil Cache gets a shared one of
	// DefaultS3CacheBytes). It is typed any so that engine does not import
	// s3store, whose AWS SDK a local-only program should not link
	// (remote.go).
	S3 any
	// Files is where COPY and CREATE TABLE AS may read and write files (nil:
	// anywhere the process can, as the caller's own code could; a server
	// passes its own policy per statement with WithFilePolicy).
	Files *fileio.Policy
	// MemoryLimit bounds each statement's memory in bytes (0: none): sorts
	// spill past it, hash joins and aggregations fail with
	// memlimit.ErrResourceExhausted. SET memory_limit may lower it, not
	// raise it (settings.go).
	MemoryLimit int64
	// SpillDir is where sorts write their temporary runs ("": os.TempDir()).
	SpillDir string
	// Threads is each query's degree of parallelism (0: 1, the serial
	// plan; the CLI and the server default to runtime.NumCPU()). SET
	// threads changes it (settings.go).
	Threads int
}

// ErrNoDatabase: Open of a directory that does not exist (without
// Options.Create), or of a path that is not a directory.
var ErrNoDatabase = errkind.New(errkind.NotFound, "engine: no database")

// DB is a set of named tables. Safe for concurrent use.
type DB struct {
	opt    Options
	dir    string    // "" for an in-memory or remote DB
	remote *remoteDB // the object-store root of a remote DB, else nil
	mu     sync.Mutex
	stores map[string]store.Store       // by lower-case table name
	acc    *access.Layer                // indexes: open, coverage, histories, create/optimize
	snaps  map[store.Store]*table.Table // newest snapshot opened per table

	settings settings // SET

	viewCache *viewCatalog // the newest views decoded (views.go)
}

var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Open opens a database by location: a local directory (a path or
// file:///path) whose tables are its sub-directories <dir>/<name>/, or an
// object-store prefix s3://bucket/prefix whose tables are its sub-prefixes
// (open_uri.go). Any existing directory is a database (an empty one has no
// tables); a missing one is ErrNoDatabase unless opt.Create is set. A
// remote location is never opened or created as a local path.
func Open(loc string, opt Options) (*DB, error) {
	if store.IsRemoteURI(loc) {
		return openRemote(context.Background(), loc, opt)
	}
	u, err := store.ParseURI(loc)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	dir := u.Path
	if opt.Create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("engine: create %s: %w", dir, err)
		}
	}
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	db := newDB(opt)
	db.dir = dir
	if opt.Table.Txns == nil {
		// The records of transactions over several tables live beside the
		// tables, in <dir>/.txn/ (table/doc.go).
		if db.opt.Table.Txns, err = store.NewLocal(dir); err != nil {
			return nil, fmt.Errorf("engine: open %s: %w", dir, err)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("engine: open %s: %w", dir, err)
	}
	for _, e := range ents {
		if !e.IsDir() || !tableName.MatchString(e.Name()) {
			continue
		}
		st, ok, err := openTableDir(context.Background(), filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // no committed manifest: no table (see tabledir.go)
		}
		db.stores[strings.ToLower(e.Name())] = st
	}
	return db, nil
}

// checkDir: dir must be an existing directory (ErrNoDatabase).
func checkDir(dir string) error {
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %w", ErrNoDatabase, err) // fs.ErrNotExist still matches
	case err != nil:
		return fmt.Errorf("engine: open %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory", ErrNoDatabase, dir)
	}
	return nil
}

func newDB(opt Options) *DB {
	if opt.Table.Txns == nil {
		// An in-memory database's transaction records (Open and
		// openRemote put a local or remote database's beside its tables).
		opt.Table.Txns = store.NewMemory()
	}
	db := &DB{opt: opt, stores: map[string]store.Store{}, acc: newLayer(opt), snaps: map[store.Store]*table.Table{}}
	// Every commit that adds rows checks the unique indexes (unique.go),
	// after a check of the caller's own.
	own := opt.Table.CommitCheck
	db.opt.Table.CommitCheck = func(ctx context.Context, latest, next *table.Table, rebased bool) error {
		if own != nil {
			if err := own(ctx, latest, next, rebased); err != nil {
				return err
			}
		}
		return db.checkUnique(ctx, latest, next, rebased)
	}
	return db
}

// OpenMemory returns a DB whose tables live in memory (tests, examples).
func OpenMemory(opt Options) *DB { return newDB(opt) }

func (db *DB) mem() memory.Allocator {
	if db.opt.Mem == nil {
		return memory.DefaultAllocator
	}
	return db.opt.Mem
}

// Tables lists the table names, sorted.
func (db *DB) Tables() []string {
	db.mu.Lock()
	defer db.mu.Unlock()
	names := make([]string, 0, len(db.stores))
	for n := range db.stores {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (db *DB) storeOf(name string) (store.Store, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	st, ok := db.stores[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownTable, name)
	}
	return st, nil
}

// Table returns the latest snapshot of a table. Versions are immutable, so
// a snapshot decoded once is reused until a newer version appears: each
// statement then costs one listing of _versions/, not a manifest decode.
func (db *DB) Table(ctx context.Context, name string) (*table.Table, error) {
	st, err := db.storeOf(name)
	if err != nil {
		return nil, err
	}
	v, err := table.LatestVersion(ctx, st)
	if err != nil {
		return nil, err
	}
	db.mu.Lock()
	t, ok := db.snaps[st]
	db.mu.Unlock()
	if ok && t.Version() == v {
		return t, nil
	}
	// The newest version v, read without listing again (an S3 take's
	// requests, TestEngineOnS3); when v is a transaction's claim not
	// committed, Open resolves it: the table then reads under it.
	if t, err = table.OpenVersion(ctx, st, v, db.opt.Table); errors.Is(err, table.ErrNotFound) {
		t, err = table.Open(ctx, st, db.opt.Table)
	}
	if err != nil {
		return nil, err
	}
	db.mu.Lock()
	if cur, ok := db.snaps[st]; !ok || cur.Version() < t.Version() {
		db.snaps[st] = t
	}
	db.mu.Unlock()
	return t, nil
}

// CreateTable creates an empty table with the given user columns. The
// table exists once table.Create committed its first manifest; a CREATE
// that fails before leaves at most a directory that is no table, which a
// retry reuses and Vacuum removes.
func (db *DB) CreateTable(ctx context.Context, name string, schema *arrow.Schema) (*table.Table, error) {
	return db.createTable(ctx, name, schema, table.Constraints{})
}

// createTable is CreateTable of a table whose first version records its
// declared constraints (PRIMARY KEY, CHECK).
func (db *DB) createTable(ctx context.Context, name string, schema *arrow.Schema, cons table.Constraints) (*table.Table, error) {
	if !tableName.MatchString(name) {
		return nil, fmt.Errorf("%w: bad table name %q", ErrUnsupported, name)
	}
	key := strings.ToLower(name)
	// A name is a table or a view (views.go).
	if vc, err := db.loadViews(ctx); err != nil {
		return nil, err
	} else if _, ok := vc.views[key]; ok {
		return nil, fmt.Errorf("%w: %q (a view)", ErrTableExists, name)
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if _, ok := db.stores[key]; ok {
		return nil, fmt.Errorf("%w: %q", ErrTableExists, name)
	}
	var st store.Store = store.NewMemory()
	var err error
	switch {
	case db.remote != nil:
		if st, err = db.remote.tableStore(key); err != nil {
			return nil, err
		}
	case db.dir != "":
		if st, err = newTableStore(filepath.Join(db.dir, key)); err != nil {
			return nil, err
		}
	}
	t, err := table.CreateConstrained(ctx, st, schema, cons, db.opt.Table)
	if err != nil {
		if errors.Is(err, table.ErrExists) {
			return nil, fmt.Errorf("%w: %q", ErrTableExists, name)
		}
		return nil, err
	}
	db.stores[key] = st
	return t, nil
}

// DropTable removes a table and all its files. For a local database the
// table's directory is first renamed out of the namespace (atomic: the
// table is gone at once and entirely), then deleted; Vacuum deletes what
// an interrupted drop left.
func (db *DB) DropTable(ctx context.Context, name string) error {
	key := strings.ToLower(name)
	db.mu.Lock()
	st, ok := db.stores[key]
	delete(db.stores, key)
	delete(db.snaps, st)
	db.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownTable, name)
	}
	switch {
	case db.remote != nil:
		return db.remote.drop(ctx, st)
	case db.dir != "":
		return dropDir(db.dir, key)
	}
	paths, err := st.List(ctx, "")
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := st.Delete(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// Append adds the rows of rdr (user columns in table order) to a table.
// A varchar(n) or char(n) column's values are checked and stored as
// INSERT stores them (char(n) without its trailing blanks).
func (db *DB) Append(ctx context.Context, name string, rdr array.RecordReader) (*table.Table, error) {
	t, err := db.Table(ctx, name)
	if err != nil {
		return nil, err
	}
	if hasDeclaredLength(t.UserSchema()) {
		ar := &mapReader{ctx: ctx, mem: db.mem(), src: rdr, schema: t.UserSchema(), f: assignDeclared}
		defer ar.release()
		rdr = ar
	}
	return t.Append(ctx, rdr, db.mem())
}

// AppendConformed is Append of rows whose columns are cast first, by
// position, to the table's column types (fileio.Conform), as COPY FROM
// casts a file's: rdr's schema need only fit the table's, not equal it.
func (db *DB) AppendConformed(ctx context.Context, name string, rdr array.RecordReader) (*table.Table, error) {
	t, err := db.Table(ctx, name)
	if err != nil {
		return nil, err
	}
	cr := &mapReader{ctx: ctx, mem: db.mem(), src: rdr, schema: t.UserSchema(), f: conformDeclared}
	defer cr.release()
	return t.Append(ctx, cr, db.mem())
}

// CreateIndex builds a BTree on column (any orderable column, _rowid
// included) over every fragment of the latest version and records it in
// the manifest (access.Layer.CreateIndex). An index on _rowid is unique by
// construction and serves TakeByKeyExec.
func (db *DB) CreateIndex(ctx context.Context, tableName, indexName, column string) error {
	t, err := db.Table(ctx, tableName)
	if err != nil {
		return err
	}
	_, err = db.acc.CreateIndex(ctx, t, tableName, indexName, column)
	return indexErr(err)
}

// taskContext is the execution context of one statement: its pool
// (statementPool), which the statement's Rows closes, and, for a heavy
// plan under a priority gate, its pass (WithPriority).
func (db *DB) taskContext(ctx context.Context, node exec.Node, params map[int]any) (*exec.TaskContext, error) {
	heavy := heavyPass(ctx, node) // before admission, which may wait
	pool, err := db.statementPool(ctx, node)
	if err != nil {
		return nil, err
	}
	return &exec.TaskContext{Mem: pool.Allocator(db.mem()), BatchSize: db.opt.BatchSize, Params: params, Pool: pool, SpillDir: db.opt.SpillDir, Priority: heavy}, nil
}

// execute starts node under its own task context; the Rows it returns
// closes the statement's pool when done.
func (db *DB) execute(ctx context.Context, node exec.Node, params map[int]any) (*Rows, error) {
	tc, err := db.taskContext(ctx, node, params)
	if err != nil {
		return nil, err
	}
	st, err := node.Execute(ctx, tc)
	if err != nil {
		tc.Pool.Close()
		return nil, err
	}
	rows := newStreamRows(ctx, node, st)
	rows.pool = tc.Pool
	return rows, nil
}
