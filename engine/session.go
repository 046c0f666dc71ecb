package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// Transaction errors; each matches its errkind.
var (
	// ErrSerialization: COMMIT found that another writer committed a change
	// to rows this transaction changed since its snapshot (PostgreSQL's
	// "could not serialize access due to concurrent update", SQLSTATE
	// 40001). Nothing of the transaction was published; retry it.
	ErrSerialization = errkind.New(errkind.Conflict, "could not serialize access due to concurrent update")
	// ErrTxnAborted: a statement after an error inside a transaction
	// (PostgreSQL's SQLSTATE 25P02); only ROLLBACK (or COMMIT, which then
	// rolls back) ends the block.
	ErrTxnAborted = errkind.New(errkind.InvalidArgument, "current transaction is aborted, commands ignored until end of transaction block")
	// ErrInTransaction: a statement whose effect a ROLLBACK could not undo
	// (DDL, VACUUM, SET), refused inside a transaction block as PostgreSQL
	// refuses VACUUM (SQLSTATE 25001).
	ErrInTransaction = errkind.Category(errkind.Unsupported, "engine: not inside a transaction block")
)

// Session is one client's sequence of statements on a DB: a CLI run or
// prompt, later a Flight SQL connection. It holds the client's open
// transaction, if any (BEGIN ... COMMIT / ROLLBACK). The DB stays usable
// by every other session meanwhile. A Session is not safe for concurrent
// use: its statements run one after another, as on one PostgreSQL
// connection.
//
// A transaction is PostgreSQL's REPEATABLE READ, snapshot isolation with
// first committer wins:
//   - Its statements see one snapshot per table, taken when the
//     transaction first reads a table (then every table is pinned at once,
//     as PostgreSQL takes one snapshot at the first statement), plus its
//     own writes.
//   - Writes store their data files but publish nothing (table.Staged);
//     COMMIT publishes each written table's changes as one new version,
//     all tables at once: with several, each table's version is claimed
//     and one transaction record is the commit point (table.CommitTxn),
//     so readers, crashes and failures see all of them or none.
//     A concurrent commit that changed the same rows of any written table
//     makes COMMIT fail with ErrSerialization and nothing is published;
//     concurrent appends and changes to other rows rebase.
//   - Snapshots of several tables, a transaction's and an autocommit
//     statement's, are taken at once (table.OpenTables), so none holds
//     half of another session's transaction.
//   - DDL, VACUUM and SET are refused inside (ErrInTransaction); COPY TO
//     a file reads the transaction's snapshot and writes the file at once
//     (a ROLLBACK does not remove it, as in PostgreSQL).
//   - An error inside aborts the transaction: its writes are dropped at
//     once and every statement but ROLLBACK / COMMIT fails with
//     ErrTxnAborted until the block ends.
//   - Close (and a session simply abandoned) publishes nothing.
type Session struct {
	db *DB
	tx *transaction
}

// NewSession opens a session on db.
func (db *DB) NewSession() *Session { return &Session{db: db} }

// TxStatus is a session's transaction state, as libpq's
// PQtransactionStatus reports it (and psql's prompt shows it).
type TxStatus int

const (
	TxIdle     TxStatus = iota // no transaction block (psql's =>)
	TxInBlock                  // in a transaction block (=*>)
	TxInFailed                 // in a failed transaction block (=!>)
)

// Status is the session's transaction state.
func (s *Session) Status() TxStatus {
	switch {
	case s.tx == nil:
		return TxIdle
	case s.tx.failed:
		return TxInFailed
	}
	return TxInBlock
}

// Close ends the session; an open transaction is rolled back.
func (s *Session) Close() {
	if s.tx != nil {
		s.tx.rollback()
		s.tx = nil
	}
}

// transaction is a session's open transaction block.
type transaction struct {
	// snap is the snapshot of every table (lower-case name) pinned at
	// the transaction's first read; pinned tells it was taken.
	snap   map[string]*table.Table
	pinned bool
	// staged are the tables the transaction writes (lower-case name),
	// each staged on its pinned snapshot at the transaction's first write
	// to it.
	staged map[string]*table.Staged
	failed bool
	// start is when BEGIN ran: now() and CURRENT_TIMESTAMP of every
	// statement in the block (PostgreSQL's transaction start timestamp).
	start time.Time
}

// snapshot pins every table of the database at once: no transaction over
// several tables is in one table's snapshot and not in another's
// (table.OpenTables). Snapshots already decoded are reused while their
// version is the newest. A table that cannot be opened is left out: a
// statement that reads it gets the error from DB.Table, one that does not
// is not failed by a table it never names.
func (db *DB) snapshot(ctx context.Context) map[string]*table.Table {
	return db.snapshotOf(ctx, nil)
}

// snapshotOf is snapshot over the tables named only (nil: all of them):
// a statement that names several tables pins those together, and lists
// no other table's versions.
func (db *DB) snapshotOf(ctx context.Context, names []string) map[string]*table.Table {
	var only map[string]bool
	if names != nil {
		only = map[string]bool{}
		for _, n := range names {
			only[strings.ToLower(n)] = true
		}
	}
	db.mu.Lock()
	stores := make(map[string]store.Store, len(db.stores))
	known := map[string]*table.Table{}
	for n, st := range db.stores {
		if only != nil && !only[strings.ToLower(n)] {
			continue
		}
		stores[n] = st
		if t, ok := db.snaps[st]; ok {
			known[n] = t
		}
	}
	db.mu.Unlock()
	tables, _ := table.OpenTables(ctx, stores, db.opt.Table, known)
	db.mu.Lock()
	for n, t := range tables {
		if cur, ok := db.snaps[stores[n]]; ok && cur.Version() >= t.Version() {
			continue
		}
		if db.stores[n] == stores[n] { // not dropped meanwhile
			db.snaps[stores[n]] = t
		}
	}
	db.mu.Unlock()
	return tables
}

// view is the snapshot of a table the transaction reads: its staged view
// of a table it writes, else the snapshot pinned at its first read. A
// table created after that (by another session) is pinned when first read.
func (tx *transaction) view(ctx context.Context, db *DB, name string) (*table.Table, error) {
	key := strings.ToLower(name)
	if s, ok := tx.staged[key]; ok {
		return s.Table(), nil
	}
	if !tx.pinned {
		tx.snap = db.snapshot(ctx)
		tx.pinned = true
	}
	if t, ok := tx.snap[key]; ok {
		if _, err := db.storeOf(name); err != nil {
			return nil, err // dropped since: its files are gone
		}
		return t, nil
	}
	t, err := db.Table(ctx, name)
	if err != nil {
		return nil, err
	}
	tx.snap[key] = t
	return t, nil
}

// target is the staged view of a table a write statement writes, staged
// on the pinned snapshot at the transaction's first write to it.
func (tx *transaction) target(ctx context.Context, db *DB, name string) (*table.Table, error) {
	key := strings.ToLower(name)
	if s, ok := tx.staged[key]; ok {
		return s.Table(), nil
	}
	t, err := tx.view(ctx, db, name)
	if err != nil {
		return nil, err
	}
	s := t.Stage(ctx)
	tx.staged[key] = s
	return s.Table(), nil
}

// commit publishes the staged tables' changes: one table's as one new
// version, several tables' all at once or none (table.CommitTxn: each
// table's version is claimed, then one transaction record is the commit
// point).
func (tx *transaction) commit(ctx context.Context, db *DB) error {
	if len(tx.staged) == 0 {
		return nil
	}
	names := make([]string, 0, len(tx.staged))
	for n := range tx.staged {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if st, err := db.storeOf(n); err != nil || st != tx.staged[n].Base().Store() {
			// Dropped (or dropped and created again) since the block wrote
			// it: publishing would write a manifest into a table that is
			// gone.
			tx.rollback()
			return fmt.Errorf("%w: table %q was dropped by a concurrent session; nothing was committed", ErrSerialization, n)
		}
	}
	var err error
	if len(names) == 1 {
		_, err = tx.staged[names[0]].Commit(ctx)
	} else {
		parts := make([]table.TxnPart, len(names))
		for i, n := range names {
			parts[i] = table.TxnPart{Name: n, Staged: tx.staged[n]}
		}
		_, err = table.CommitTxn(ctx, parts)
	}
	if errors.Is(err, table.ErrConflict) {
		return fmt.Errorf("%w: %s: %w", ErrSerialization, strings.Join(quoted(names), ", "), err)
	}
	return err
}

func quoted(names []string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("table %q", n)
	}
	return q
}

func (tx *transaction) rollback() {
	for _, s := range tx.staged {
		s.Rollback()
	}
}

// fail marks the open transaction aborted after err (which it returns):
// its writes are dropped now, the block stays until ROLLBACK.
func (s *Session) fail(err error) error {
	if err != nil {
		s.abort()
	}
	return err
}

// control runs BEGIN, COMMIT or ROLLBACK. As in PostgreSQL, BEGIN inside a
// block and COMMIT or ROLLBACK outside one only warn (the Rows' Summary),
// and COMMIT of a failed block rolls it back and answers ROLLBACK.
func (s *Session) control(ctx context.Context, t *sql.Transaction) (*Rows, error) {
	r := newDoneRows(0)
	r.tag = t.String()
	switch t.Action {
	case sql.TxnBegin:
		if s.tx != nil {
			r.summary = "WARNING:  there is already a transaction in progress"
			return r, nil
		}
		s.tx = &transaction{snap: map[string]*table.Table{}, staged: map[string]*table.Staged{}, start: time.Now()}
		return r, nil
	}
	tx := s.tx
	s.tx = nil
	if tx == nil {
		r.summary = "WARNING:  there is no transaction in progress"
		return r, nil
	}
	if t.Action == sql.TxnRollback || tx.failed {
		tx.rollback()
		r.tag = "ROLLBACK"
		return r, nil
	}
	if err := tx.commit(ctx, s.db); err != nil {
		return nil, err
	}
	return r, nil
}

// allowedInTransaction refuses the statements whose effect a ROLLBACK
// could not undo: they change the catalog, rewrite files or settings
// outside the transaction's staged table.
func allowedInTransaction(st sql.Statement) error {
	var what string
	switch st.(type) {
	case *sql.Query, *sql.Insert, *sql.Delete, *sql.Update, *sql.CopyFrom, *sql.CopyTo:
		return nil
	case *sql.CreateTableAs:
		what = "CREATE TABLE AS" // its command tag is "SELECT n"
	case *sql.Set:
		what = "SET" // RESET too
	default:
		if what = commandTag(st, 0); what == "" {
			what = fmt.Sprintf("%T", st)
		}
	}
	return fmt.Errorf("%w: %s cannot run inside a transaction block (its effect could not be rolled back); COMMIT or ROLLBACK first", ErrInTransaction, what)
}

// abort marks the open transaction failed (a statement's rows failed
// while streaming, after Query returned).
func (s *Session) abort() {
	if s.tx != nil && !s.tx.failed {
		s.tx.failed = true
		s.tx.rollback()
	}
}
