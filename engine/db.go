package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/index/btree"
	"github.com/stablerow/stablerow/index/fragreuse"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// Options configure a DB.
type Options struct {
	Mem            memory.Allocator // nil: memory.DefaultAllocator
	BatchSize      int              // 0: exec.DefaultBatchSize
	DisableIndexes bool             // plan without indexes (metamorphic checks)
	Table          table.Options    // write options of every table
	// ProbeBatch is TakeByKeyExec's keys per index probe (0: default).
	ProbeBatch int
}

// DB is a set of named tables. Safe for concurrent use.
type DB struct {
	opt    Options
	dir    string // "" for an in-memory DB
	mu     sync.Mutex
	stores map[string]store.Store  // by lower-case table name
	idx    map[string]*btree.Index // open indexes by store identity + prefix
	hist   map[string]*fragreuse.History
	snaps  map[store.Store]*table.Table // newest snapshot opened per table
}

var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Open opens (creating if needed) a database directory. Each table is a
// sub-directory <dir>/<name>/.
func Open(dir string, opt Options) (*DB, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("engine: open %s: %w", dir, err)
	}
	db := &DB{opt: opt, dir: dir, stores: map[string]store.Store{}, idx: map[string]*btree.Index{}, hist: map[string]*fragreuse.History{}, snaps: map[store.Store]*table.Table{}}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("engine: open %s: %w", dir, err)
	}
	for _, e := range ents {
		if !e.IsDir() || !tableName.MatchString(e.Name()) {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "_versions")); err != nil {
			continue
		}
		st, err := store.NewLocal(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		db.stores[strings.ToLower(e.Name())] = st
	}
	return db, nil
}

// OpenMemory returns a DB whose tables live in memory (tests, examples).
func OpenMemory(opt Options) *DB {
	return &DB{opt: opt, stores: map[string]store.Store{}, idx: map[string]*btree.Index{}, hist: map[string]*fragreuse.History{}, snaps: map[store.Store]*table.Table{}}
}

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
	if t, err = table.OpenVersion(ctx, st, v, db.opt.Table); err != nil {
		return nil, err
	}
	db.mu.Lock()
	if cur, ok := db.snaps[st]; !ok || cur.Version() < t.Version() {
		db.snaps[st] = t
	}
	db.mu.Unlock()
	return t, nil
}

// CreateTable creates an empty table with the given user columns.
func (db *DB) CreateTable(ctx context.Context, name string, schema *arrow.Schema) (*table.Table, error) {
	if !tableName.MatchString(name) {
		return nil, fmt.Errorf("%w: bad table name %q", ErrUnsupported, name)
	}
	key := strings.ToLower(name)
	db.mu.Lock()
	defer db.mu.Unlock()
	if _, ok := db.stores[key]; ok {
		return nil, fmt.Errorf("%w: %q", ErrTableExists, name)
	}
	var st store.Store = store.NewMemory()
	if db.dir != "" {
		var err error
		if st, err = store.NewLocal(filepath.Join(db.dir, key)); err != nil {
			return nil, err
		}
	}
	t, err := table.Create(ctx, st, schema, db.opt.Table)
	if err != nil {
		if errors.Is(err, table.ErrExists) {
			return nil, fmt.Errorf("%w: %q", ErrTableExists, name)
		}
		return nil, err
	}
	db.stores[key] = st
	return t, nil
}

// DropTable removes a table and all its files.
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
	if db.dir != "" {
		return os.RemoveAll(filepath.Join(db.dir, key))
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
func (db *DB) Append(ctx context.Context, name string, rdr array.RecordReader) (*table.Table, error) {
	t, err := db.Table(ctx, name)
	if err != nil {
		return nil, err
	}
	return t.Append(ctx, rdr, db.mem())
}

// CreateIndex builds a BTree on column (any orderable column, _rowid
// included) over every fragment of the latest version and records it in
// the manifest. An index on _rowid is unique by construction and serves
// TakeByKeyExec.
func (db *DB) CreateIndex(ctx context.Context, tableName, indexName, column string) error {
	t, err := db.Table(ctx, tableName)
	if err != nil {
		return err
	}
	ci := t.ColumnIndex(column)
	if ci < 0 {
		return fmt.Errorf("%w: table %s has no column %q", ErrIndex, tableName, column)
	}
	column = t.Schema().Field(ci).Name
	if indexName == "" {
		indexName = tableName + "_" + strings.TrimPrefix(column, "_") + "_idx"
	}
	if t.Index(indexName) != nil {
		return fmt.Errorf("%w: %q on %s", ErrIndexExists, indexName, tableName)
	}
	prefix := "_indices/" + newID() + "/"
	ix, err := btree.TrainFrom(ctx, t.Store(), prefix, t, column, btree.Options{Mem: db.mem()})
	if err != nil {
		return fmt.Errorf("engine: build index %s: %w", indexName, err)
	}
	meta := &table.IndexMeta{Name: indexName, Column: column, Kind: "btree", Prefix: prefix,
		Fragments: bitmapOf(ix.Meta().FragmentIDs), DatasetVersion: t.Version(), Unique: column == table.RowID}
	if _, err := t.CommitIndex(ctx, meta, false); err != nil {
		return err
	}
	db.mu.Lock()
	db.idx[indexKey(t.Store(), prefix)] = ix
	db.mu.Unlock()
	return nil
}

func indexKey(st store.Store, prefix string) string { return fmt.Sprintf("%p/%s", st, prefix) }

// openIndex returns the open BTree for an index record (opened once).
func (db *DB) openIndex(ctx context.Context, t *table.Table, m *table.IndexMeta) (*btree.Index, error) {
	key := indexKey(t.Store(), m.Prefix)
	db.mu.Lock()
	ix, ok := db.idx[key]
	db.mu.Unlock()
	if ok {
		return ix, nil
	}
	ix, err := btree.Open(ctx, t.Store(), m.Prefix, btree.Options{Mem: db.mem()})
	if err != nil {
		return nil, fmt.Errorf("engine: open index %s: %w", m.Name, err)
	}
	db.mu.Lock()
	db.idx[key] = ix
	db.mu.Unlock()
	return ix, nil
}

func (db *DB) taskContext(params map[int]any) *exec.TaskContext {
	return &exec.TaskContext{Mem: db.mem(), BatchSize: db.opt.BatchSize, Params: params}
}
