package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
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
//     COMMIT publishes the written table's changes as one new version.
//     A concurrent commit that changed the same rows makes COMMIT fail with
//     ErrSerialization and nothing is published; concurrent appends and
//     changes to other rows rebase.
//   - A transaction writes at most one table: there is no database-wide
//     log that would publish two tables' versions atomically, so a write
//     to a second table is ErrUnsupported rather than a COMMIT that could
//     publish one table and not the other.
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
	// staged is the one table the transaction writes (nil until its first
	// write); stagedName its lower-case name.
	staged     *table.Staged
	stagedName string
	failed     bool
}

// view is the snapshot of a table the transaction reads: its staged view
// of the table it writes, else the snapshot pinned at its first read. A
// table created after that (by another session) is pinned when first read.
func (tx *transaction) view(ctx context.Context, db *DB, name string) (*table.Table, error) {
	key := strings.ToLower(name)
	if tx.staged != nil && tx.stagedName == key {
		return tx.staged.Table(), nil
	}
	if !tx.pinned {
		// One pass over the tables, so that two tables read by different
		// statements come from the same moment (as near as separate tables'
		// logs allow: each is listed once, one after another).
		for _, n := range db.Tables() {
			t, err := db.Table(ctx, n)
			if err != nil {
				// Dropped meanwhile, or unreadable: a statement that reads
				// it gets the error below, one that does not is not failed
				// by a table it never names.
				continue
			}
			tx.snap[n] = t
		}
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

// target is the staged view of the table a write statement writes,
// staged on the pinned snapshot at the transaction's first write to it.
func (tx *transaction) target(ctx context.Context, db *DB, name string) (*table.Table, error) {
	key := strings.ToLower(name)
	if tx.staged != nil {
		if tx.stagedName != key {
			return nil, fmt.Errorf("%w: a transaction writes one table; this one already wrote %q, so a write to %q must go in its own transaction (a COMMIT of two tables could not be atomic: there is no database-wide log)",
				ErrUnsupported, tx.stagedName, key)
		}
		return tx.staged.Table(), nil
	}
	t, err := tx.view(ctx, db, name)
	if err != nil {
		return nil, err
	}
	tx.staged, tx.stagedName = t.Stage(ctx), key
	return tx.staged.Table(), nil
}

// commit publishes the staged table's changes (if any) as one version.
func (tx *transaction) commit(ctx context.Context, db *DB) error {
	if tx.staged == nil {
		return nil
	}
	if st, err := db.storeOf(tx.stagedName); err != nil || st != tx.staged.Base().Store() {
		// Dropped (or dropped and created again) since the block wrote it:
		// publishing would write a manifest into a table that is gone.
		tx.staged.Rollback()
		return fmt.Errorf("%w: table %q was dropped by a concurrent session; nothing was committed", ErrSerialization, tx.stagedName)
	}
	_, err := tx.staged.Commit(ctx)
	if errors.Is(err, table.ErrConflict) {
		return fmt.Errorf("%w: table %q: %w", ErrSerialization, tx.stagedName, err)
	}
	return err
}

func (tx *transaction) rollback() {
	if tx.staged != nil {
		tx.staged.Rollback()
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
		s.tx = &transaction{snap: map[string]*table.Table{}}
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
	case *sql.CreateTable:
		what = "CREATE TABLE"
	case *sql.CreateTableAs:
		what = "CREATE TABLE AS"
	case *sql.DropTable:
		what = "DROP TABLE"
	case *sql.CreateIndex:
		what = "CREATE INDEX"
	case *sql.DropIndex:
		what = "DROP INDEX"
	case *sql.Cluster:
		what = "CLUSTER"
	case *sql.Reindex:
		what = "REINDEX"
	case *sql.Vacuum:
		what = "VACUUM"
	case *sql.Set:
		what = "SET"
	default:
		what = fmt.Sprintf("%T", st)
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
