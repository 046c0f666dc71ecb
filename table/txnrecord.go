package table

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stablerow/stablerow/table/store"
)

// Transaction records: the commit point of a transaction that writes
// several tables (the design is in doc.go, "Transactions over several
// tables"). This file holds the record, its file format and the one
// operation on it, Decide; the claims that name a record and the readers
// that resolve them are not built yet, so nothing writes a record today.
//
// A record lives in the database's transaction store (not in any one
// table's: every table the transaction writes must reach the same one),
// at TxnRecordPath(id). It is written once, with put-if-absent, by whoever
// decides the transaction first: its writer, committing it, or another
// writer or a cleanup that gives up on it, aborting it. Put-if-absent is
// the only atomic primitive of the stores (local disk and S3), and it is
// enough: exactly one decision is ever stored, and every later Decide
// returns that one, so a writer whose commit point lost to an abort learns
// it has failed, and an aborter whose abort lost learns the transaction
// committed.

// TxnState is what a transaction record says; TxnPending is the absence
// of a record.
type TxnState uint8

const (
	// TxnPending: no record yet. The transaction's claims are not
	// visible; it may still commit.
	TxnPending TxnState = iota
	// TxnCommitted: every claim the record lists is a visible version.
	TxnCommitted
	// TxnAborted: no claim of the transaction will ever be visible.
	TxnAborted
)

func (s TxnState) String() string {
	switch s {
	case TxnPending:
		return "pending"
	case TxnCommitted:
		return "committed"
	case TxnAborted:
		return "aborted"
	}
	return fmt.Sprintf("TxnState(%d)", uint8(s))
}

// TxnTable is one table a committed transaction wrote: its name in the
// database and the version its claim holds.
type TxnTable struct {
	Name    string
	Version uint64
}

// TxnRecord is the decision on one transaction.
type TxnRecord struct {
	ID           string   // the transaction id (NewID), also the record's file name
	State        TxnState // TxnCommitted or TxnAborted; never TxnPending in a record
	DecidedNanos int64    // when the decision was made (wall clock of its maker)
	By           string   // who decided, for humans: "commit", or why it was aborted
	// Tables lists, for a committed transaction, every table it wrote and
	// the version it claimed there, sorted by name; readers use it to
	// keep a snapshot of several tables from holding only part of the
	// transaction. An aborted record lists none: an abort can be decided
	// by someone who does not know them.
	Tables []TxnTable
}

// txnRecordDir is where records live in the transaction store. The dot
// keeps it out of a database's table namespace (table names start with a
// letter or an underscore), as the engine's ".dropped-" directories are.
const txnRecordDir = ".txn/"

// TxnRecordPath is the path of transaction id's record in the
// transaction store.
func TxnRecordPath(id string) string { return txnRecordDir + id + ".txn" }

// validTxnID: ids are NewID's 32 lower-case hex digits, so a record's
// path never holds a separator or a dot-dot a store would refuse or
// resolve elsewhere.
func validTxnID(id string) bool {
	if len(id) != 32 {
		return false
	}
	return strings.IndexFunc(id, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') }) < 0
}

// Transaction record layout (integers little-endian, u/v = uvarint):
//
//	"SRTX" | u16 format version | u16 flags=0 | u32 body length | body | u32 crc32c
//
// body: str id | uv state (1 committed, 2 aborted) | i64 decided ns |
// str by | uv n, n × (str table name | uv version).
//
// The crc covers everything before it. Readers check the magic, the
// format version, the flags, that the body length is the file's, the crc,
// every length against the bytes left, that nothing trails the body, and
// the content (validate): any mismatch is ErrCorrupt naming the
// record. A corrupt record is never read as "pending": that could make a
// committed transaction's claims invisible after later versions were
// built on them.
const (
	txnMagic   = "SRTX"
	txnVersion = 1
)

// MarshalBinary encodes the record; it refuses a record that would not
// read back (validate).
func (r *TxnRecord) MarshalBinary() ([]byte, error) {
	if err := r.validate(ErrInvalidArgument); err != nil {
		return nil, err
	}
	var e encoder
	e.str(r.ID)
	e.uv(uint64(r.State))
	e.i64(r.DecidedNanos)
	e.str(r.By)
	e.uv(uint64(len(r.Tables)))
	for _, t := range r.Tables {
		e.str(t.Name)
		e.uv(t.Version)
	}
	return SealEnvelope(txnMagic, txnVersion, e.b), nil
}

// validate checks what every record must hold: an id of NewID's form, a
// decided state, and for a commit its tables (at least one, named,
// sorted, unique, at versions past a table's creation); an abort lists
// none. sentinel is ErrInvalidArgument for a record about to be
// written (a caller's bug), ErrCorrupt for one read.
func (r *TxnRecord) validate(sentinel error) error {
	bad := func(format string, args ...any) error {
		return errorf(sentinel, "transaction record %q: "+format, append([]any{r.ID}, args...)...)
	}
	if !validTxnID(r.ID) {
		return bad("the id is not 32 lower-case hex digits")
	}
	switch r.State {
	case TxnCommitted:
		if len(r.Tables) == 0 {
			return bad("a commit that names no table")
		}
	case TxnAborted:
		if len(r.Tables) != 0 {
			return bad("an abort that names %d tables", len(r.Tables))
		}
	default:
		return bad("unknown state %d", uint8(r.State))
	}
	for i, t := range r.Tables {
		if t.Name == "" {
			return bad("table %d has no name", i)
		}
		if i > 0 && t.Name <= r.Tables[i-1].Name {
			return bad("tables not sorted and unique at %q", t.Name)
		}
		if t.Version < 2 {
			// Version 1 is the table's creation (table.Create), never a
			// transaction's claim.
			return bad("table %q at version %d", t.Name, t.Version)
		}
	}
	return nil
}

// UnmarshalTxnRecord decodes and checks the record stored at path p (the
// path is checked against the id it holds: a record copied under another
// name would decide the wrong transaction).
func UnmarshalTxnRecord(p string, b []byte) (*TxnRecord, error) {
	bad := func(format string, args ...any) error {
		return errorf(ErrCorrupt, "transaction record %s: "+format, append([]any{p}, args...)...)
	}
	body, err := OpenEnvelope(b, txnMagic, txnVersion, bad)
	if err != nil {
		return nil, err
	}
	d := &decoder{b: body}
	r := &TxnRecord{ID: d.str("id")}
	state := d.uv("state")
	r.DecidedNanos = d.i64("decided")
	r.By = d.str("decided by")
	// Each table takes at least two bytes (an empty name's length and a
	// version), which bounds the allocation by the record's size.
	n := d.count("table count", 2)
	for i := 0; i < n && d.err == nil; i++ {
		r.Tables = append(r.Tables, TxnTable{Name: d.str("table name"), Version: d.uv("table version")})
	}
	if d.err != nil {
		return nil, bad("%w", d.err)
	}
	if len(d.b) != 0 {
		return nil, bad("%d trailing bytes", len(d.b))
	}
	if state > 255 {
		return nil, bad("unknown state %d", state)
	}
	r.State = TxnState(state)
	if err := r.validate(ErrCorrupt); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if TxnRecordPath(r.ID) != p {
		return nil, bad("holds transaction %q", r.ID)
	}
	return r, nil
}

// ReadTxn returns the decision on transaction id: TxnPending and a nil
// record when none was stored. A record that cannot be read is an error,
// never "pending" (see the format's comment).
func ReadTxn(ctx context.Context, txns store.Store, id string) (TxnState, *TxnRecord, error) {
	if !validTxnID(id) {
		return TxnPending, nil, errorf(ErrInvalidArgument, "transaction id %q is not 32 lower-case hex digits", id)
	}
	p := TxnRecordPath(id)
	b, err := txns.Get(ctx, p)
	if errors.Is(err, store.ErrNotFound) {
		return TxnPending, nil, nil
	}
	if err != nil {
		return TxnPending, nil, fmt.Errorf("table: read transaction record %s: %w", p, err)
	}
	r, err := UnmarshalTxnRecord(p, b)
	if err != nil {
		return TxnPending, nil, err
	}
	return r.State, r, nil
}

// DecideTxn stores rec as the decision on its transaction unless one is
// already stored, and returns the decision in force: rec itself when it
// won, else the stored one. Callers compare its State with the one they
// asked for: a writer whose commit returns an abort has failed (nothing
// of it is visible), an aborter whose abort returns a commit must treat
// the transaction's claims as versions.
//
// A store error leaves the decision unknown (the put may or may not have
// landed): the caller must not assume either state, and may call DecideTxn
// again, which returns whatever landed.
func DecideTxn(ctx context.Context, txns store.Store, rec *TxnRecord) (*TxnRecord, error) {
	b, err := rec.MarshalBinary()
	if err != nil {
		return nil, err
	}
	p := TxnRecordPath(rec.ID)
	err = txns.PutIfAbsent(ctx, p, b)
	if err == nil {
		c := *rec
		c.Tables = slices.Clone(rec.Tables)
		return &c, nil
	}
	if !errors.Is(err, store.ErrExists) {
		return nil, fmt.Errorf("table: decide transaction %s: %w", rec.ID, err)
	}
	state, got, err := ReadTxn(ctx, txns, rec.ID)
	if err != nil {
		return nil, err
	}
	if state == TxnPending {
		// The put said the record exists, the get found none: records are
		// never deleted while a claim may name them (doc.go), so the store
		// broke put-if-absent's promise.
		return nil, errorf(ErrCorrupt, "transaction record %s: put-if-absent found it, a read did not", p)
	}
	return got, nil
}
