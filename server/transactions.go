package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/engine"
)

// txn is a Flight SQL transaction (BeginTransaction): an engine.Session
// with its transaction block open, bound to the user who began it. Its
// statements run in the session, so they see its snapshot and its own
// writes (engine.Session: REPEATABLE READ, one written table).
//
// An engine.Session runs one statement at a time, so a txn is used by one
// call at a time: a call on a txn that is busy fails at once with
// FailedPrecondition rather than wait. Waiting could deadlock a client: a
// query's result holds the txn until its DoGet has read it to the end (its
// rows read the session's snapshot while they stream), and a client that
// runs another statement before that DoGet would wait for itself.
type txn struct {
	user any // flight.AuthFromContext of BeginTransaction (nil: no auth)

	mu       sync.Mutex
	sess     *engine.Session
	busy     bool
	ended    bool
	lastUsed time.Time
	expiry   *time.Timer // rolls it back once idle for Options.TransactionTTL
}

var (
	errNoTxn   = status.Error(codes.NotFound, "no such transaction (ended, idle too long and rolled back, of another user, or of another server)")
	errTxnBusy = status.Error(codes.FailedPrecondition, "the transaction is busy with another call (or a result of it not yet read to its end): a transaction runs one call at a time")
)

// BeginTransaction opens a transaction block in a session of its own and
// returns its id: 16 random bytes, so that an id cannot be guessed.
func (s *Server) BeginTransaction(ctx context.Context, _ flightsql.ActionBeginTransactionRequest) ([]byte, error) {
	sess := s.db.NewSession()
	rows, err := sess.Query(ctx, "BEGIN", nil)
	if err == nil {
		err = rows.Close()
	}
	if err != nil {
		sess.Close()
		return nil, s.statusOf(err)
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	t := &txn{user: flight.AuthFromContext(ctx), sess: sess, lastUsed: s.opt.now()}
	s.mu.Lock()
	s.txns[id] = t
	t.mu.Lock() // the timer's function reads t.expiry under t.mu
	t.expiry = time.AfterFunc(s.opt.TransactionTTL, func() { s.expireTxn(id, t) })
	t.mu.Unlock()
	s.mu.Unlock()
	return []byte(id), nil
}

// acquireTxn looks up the transaction of id for the caller and marks it
// busy until release. A transaction of another user is not found, as one
// that does not exist: its id tells nothing.
func (s *Server) acquireTxn(ctx context.Context, id []byte) (*txn, error) {
	s.mu.Lock()
	t, ok := s.txns[string(id)]
	s.mu.Unlock()
	if !ok || t.user != flight.AuthFromContext(ctx) {
		return nil, errNoTxn
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.ended:
		return nil, errNoTxn
	case t.busy:
		return nil, errTxnBusy
	}
	t.busy = true
	return t, nil
}

// release ends a call's use of t; its idle time starts now. A
// transaction Shutdown ended while the call held it is rolled back now,
// once its statement is done with the session.
func (s *Server) release(t *txn) {
	t.mu.Lock()
	t.busy = false
	t.lastUsed = s.opt.now()
	ended := t.ended
	t.mu.Unlock()
	if ended {
		t.sess.Close()
	}
}

// checkTxn checks that id is an open transaction of the caller (a
// prepared statement created in it), without using it: a busy one is
// fine, the statement runs in it later.
func (s *Server) checkTxn(ctx context.Context, id []byte) error {
	if len(id) == 0 {
		return nil
	}
	s.mu.Lock()
	t, ok := s.txns[string(id)]
	s.mu.Unlock()
	if !ok || t.user != flight.AuthFromContext(ctx) {
		return errNoTxn
	}
	return nil
}

// EndTransaction commits or rolls back a transaction and forgets it. A
// COMMIT that fails (a serialization conflict: Aborted) has published
// nothing; the transaction is gone either way, as in PostgreSQL.
func (s *Server) EndTransaction(ctx context.Context, req flightsql.ActionEndTransactionRequest) error {
	var text string
	switch req.GetAction() {
	case flightsql.EndTransactionCommit:
		text = "COMMIT"
	case flightsql.EndTransactionRollback:
		text = "ROLLBACK"
	default:
		return status.Errorf(codes.InvalidArgument, "EndTransaction: action %v: want COMMIT or ROLLBACK", req.GetAction())
	}
	t, err := s.acquireTxn(ctx, req.GetTransactionId())
	if err != nil {
		return err
	}
	s.forgetTxn(string(req.GetTransactionId()))
	failed := t.sess.Status() == engine.TxInFailed
	rows, err := t.sess.Query(ctx, text, nil)
	if err == nil {
		err = rows.Close()
	}
	t.sess.Close() // rolls back whatever a failed COMMIT left
	if err != nil {
		return s.statusOf(err)
	}
	if failed && text == "COMMIT" {
		// PostgreSQL answers COMMIT of a failed block with ROLLBACK; a
		// Flight SQL client has only the error to learn that nothing was
		// committed.
		return status.Error(codes.Aborted, "the transaction was aborted by an earlier error and has been rolled back: nothing was committed")
	}
	return nil
}

// forgetTxn removes a transaction from the server and marks it ended: a
// call that holds it finishes, no call takes it again.
func (s *Server) forgetTxn(id string) {
	s.mu.Lock()
	t, ok := s.txns[id]
	delete(s.txns, id)
	s.mu.Unlock()
	if ok {
		t.mu.Lock()
		t.ended = true
		t.expiry.Stop()
		t.mu.Unlock()
	}
}

// expireTxn rolls t back if it went idle for Options.TransactionTTL: a
// client that died must not hold a snapshot (and staged files) for ever.
// A busy transaction is looked at again a TTL later.
func (s *Server) expireTxn(id string, t *txn) {
	t.mu.Lock()
	left := s.opt.TransactionTTL - s.opt.now().Sub(t.lastUsed)
	if t.busy {
		left = s.opt.TransactionTTL
	}
	if t.ended {
		t.mu.Unlock()
		return
	}
	if left > 0 {
		t.expiry.Reset(left)
		t.mu.Unlock()
		return
	}
	t.busy = true // no call takes it while it is rolled back
	t.mu.Unlock()
	s.forgetTxn(id)
	t.sess.Close()
}

// rollbackAllTxns rolls back every open transaction (server shutdown,
// once no call runs).
func (s *Server) rollbackAllTxns() {
	s.mu.Lock()
	ts := s.txns
	s.txns = map[string]*txn{}
	s.mu.Unlock()
	for _, t := range ts {
		t.mu.Lock()
		t.ended = true
		t.expiry.Stop()
		busy := t.busy
		t.mu.Unlock()
		if !busy {
			// A call still holding it (one grpc.Stop cut off) rolls it back
			// in release: the session runs one statement at a time.
			t.sess.Close()
		}
	}
}
