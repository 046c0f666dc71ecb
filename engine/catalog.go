package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

// catalog pins one snapshot per table for the life of a statement and
// serves both the SQL front end (schemas) and the planner (providers).
type catalog struct {
	ctx  context.Context
	db   *DB
	sess *Session // nil: no session; its open transaction pins the snapshots
	mu   sync.Mutex
	snap map[string]*table.Table
	// all is every table pinned at once at the statement's first table
	// (DB.snapshot), outside a transaction block: a statement reading
	// several tables must not hold half of a transaction over them.
	all map[string]*table.Table
	// named are the relations the statement names (sql.TableNamer), nil
	// when not told (a Substrait plan): all tables are then pinned.
	named []string
	// views is the version of the views the statement reads (views.go).
	views *viewCatalog
	// ndv is each pinned table's distinct counts per column, once
	// merged (distinct.go); nil slice: unknown.
	ndv map[*table.Table][]float64
	// zoneStats is each pinned table column's zone map for the
	// estimator, once read (zonestats.go).
	zoneStats map[zoneKey]zoneStat
	// pairs, while ON CONFLICT DO UPDATE evaluates its action, is the
	// relation sql.ConflictPairs names (upsert.go).
	pairs plan.TableProvider
}

// StatementTime implements sql.StatementClock: inside a session's
// transaction block the time of its BEGIN, else now (the lowerer asks
// once per statement), as PostgreSQL's now() is its transaction's start
// and a statement outside a block is a transaction of its own.
func (c *catalog) StatementTime() time.Time {
	if c.sess != nil && c.sess.tx != nil {
		return c.sess.tx.start
	}
	return time.Now()
}

// StatementTables implements sql.TableNamer.
func (c *catalog) StatementTables(names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.named = names
	if names == nil {
		c.named = []string{}
	}
}

func (db *DB) newCatalog(ctx context.Context) *catalog {
	return &catalog{ctx: ctx, db: db, snap: map[string]*table.Table{}}
}

func (c *catalog) table(name string) (*table.Table, error) {
	key := strings.ToLower(name)
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.snap[key]; ok {
		return t, nil
	}
	var t *table.Table
	var err error
	if tx := c.txn(); tx != nil {
		t, err = tx.view(c.ctx, c.db, name)
	} else {
		if c.all == nil {
			switch {
			case c.named == nil:
				c.all = c.db.snapshot(c.ctx)
			case len(c.named) <= 1:
				// One table: nothing to hold a transaction's other
				// half against, so it is opened alone, as before
				// transactions spanned tables (an S3 take's LIST and
				// GETs, TestEngineOnS3).
				c.all = map[string]*table.Table{}
			default:
				c.all = c.db.snapshotOf(c.ctx, c.named)
			}
		}
		var ok bool
		if t, ok = c.all[key]; ok {
			_, err = c.db.storeOf(name) // dropped since?
		} else {
			// Unreadable at the pin, or created since: its own error or
			// its newest version.
			t, err = c.db.Table(c.ctx, name)
		}
	}
	if err != nil {
		return nil, err
	}
	c.snap[key] = t
	return t, nil
}

// txn is the session's open transaction, or nil.
func (c *catalog) txn() *transaction {
	if c.sess == nil {
		return nil
	}
	return c.sess.tx
}

// target is the table a write statement (INSERT, UPDATE, DELETE, COPY
// FROM) writes: the latest snapshot outside a transaction; inside, the
// transaction's staged view (session.go), so the write publishes nothing
// until COMMIT. The statement's later reads of the table see that view.
func (c *catalog) target(name string) (*table.Table, error) {
	tx := c.txn()
	if tx == nil {
		return c.table(name)
	}
	t, err := tx.target(c.ctx, c.db, name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.snap[strings.ToLower(name)] = t
	c.mu.Unlock()
	return t, nil
}

// unknownTable marks a missing table with the front end's sentinel; any
// other failure (a corrupt manifest, an IO error) keeps its own identity.
func unknownTable(sentinel, err error) error {
	if errors.Is(err, ErrUnknownTable) {
		return fmt.Errorf("%w: %w", sentinel, err)
	}
	return err
}

// TableSchema implements sql.Catalog.
func (c *catalog) TableSchema(name string) (*arrow.Schema, error) {
	t, err := c.table(name)
	if err != nil {
		return nil, unknownTable(sql.ErrUnknownTable, err)
	}
	return t.Schema(), nil
}

// TableChecks implements sql.CheckCatalog: the CHECK constraints the
// table's manifest records.
func (c *catalog) TableChecks(name string) ([]sql.Check, error) {
	t, err := c.table(name)
	if err != nil {
		return nil, unknownTable(sql.ErrUnknownTable, err)
	}
	var out []sql.Check
	for _, k := range t.Constraints().Checks {
		out = append(out, sql.Check{Name: k.Name, Expr: k.Expr})
	}
	return out, nil
}

// TableNames implements sql.TableLister.
func (c *catalog) TableNames() []string { return c.db.Tables() }

// TableRows implements plan.RowCounter: the live rows of the pinned
// snapshot, which order the joins of FROM a, b, c.
func (c *catalog) TableRows(name string) (uint64, bool) {
	t, err := c.table(name)
	if err != nil {
		return 0, false
	}
	return t.LiveRows(), true
}

// Table implements plan.Catalog.
func (c *catalog) Table(name string) (plan.TableProvider, error) {
	if c.pairs != nil && name == sql.ConflictPairs {
		return c.pairs, nil
	}
	t, err := c.table(name)
	if err != nil {
		return nil, unknownTable(plan.ErrUnknownTable, err)
	}
	return &provider{c: c, t: t}, nil
}

// provider is one table snapshot as the planner sees it.
type provider struct {
	c *catalog
	t *table.Table
}

func (p *provider) Schema() *arrow.Schema { return p.t.Schema() }

// noIndexes: plan without indexes when the DB says so, or when the
// snapshot is a transaction's staged view, whose private version number
// must not meet the index resolvers cached by version, and whose own new
// fragments no index covers anyway.
func (p *provider) noIndexes() bool { return p.c.db.opt.DisableIndexes || p.t.IsStaged() }

func (p *provider) Scan(columns []int) (exec.Node, error) { return p.ScanWhere(columns, nil) }

// HasUniqueIndex: TakeByKey may succeed on keyColumn (plan.UniqueKeyer),
// by the same checks, without building the resolver.
func (p *provider) HasUniqueIndex(keyColumn int) bool {
	if p.noIndexes() || keyColumn < 0 || keyColumn >= p.t.Schema().NumFields() || hasPaddedChar(p.t.Schema()) {
		return false
	}
	return access.Find(p.t, p.t.Schema().Field(keyColumn).Name, true) != nil
}

// TakeByKey plans a TakeByKeyExec when a unique BTree covers the key
// column (today: the index on _rowid, unique by construction); the access
// layer's resolver answers for the index in this snapshot.
func (p *provider) TakeByKey(driving exec.Node, drivingKey int, keyColumn int, columns []int) (exec.Node, bool, error) {
	if p.noIndexes() || keyColumn < 0 || keyColumn >= p.t.Schema().NumFields() || hasPaddedChar(p.t.Schema()) {
		return nil, false, nil
	}
	col := p.t.Schema().Field(keyColumn).Name
	meta := access.Find(p.t, col, true)
	if meta == nil {
		return nil, false, nil
	}
	if !arrow.TypeEqual(driving.Schema().Field(drivingKey).Type, p.t.Schema().Field(keyColumn).Type) {
		return nil, false, nil
	}
	r, err := p.c.db.acc.Resolver(p.c.ctx, p.t, meta)
	if err != nil {
		return nil, false, indexErr(err)
	}
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = p.t.Schema().Field(c).Name
	}
	opt := exec.TakeByKeyOptions{ProbeBatch: p.c.db.opt.ProbeBatch, Remap: r.Remapper()}
	n, err := exec.NewTakeByKeyExec(driving, drivingKey, p.t, col, r, names, opt)
	if err != nil {
		return nil, false, err
	}
	return n, true, nil
}
