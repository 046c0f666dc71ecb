package sql

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// TxnAction is what a transaction control statement does.
type TxnAction int

const (
	// TxnBegin is BEGIN, BEGIN TRANSACTION, START TRANSACTION (and
	// BEGIN WORK).
	TxnBegin TxnAction = iota + 1
	// TxnCommit is COMMIT and END.
	TxnCommit
	// TxnRollback is ROLLBACK and ABORT.
	TxnRollback
)

// Transaction is a transaction control statement. The engine's Session
// runs it; a DB without a session refuses it (there is no block to open).
type Transaction struct {
	Action TxnAction
}

func (*Transaction) statement() {}

// String is the command tag PostgreSQL answers with.
func (t *Transaction) String() string {
	switch t.Action {
	case TxnBegin:
		return "BEGIN"
	case TxnCommit:
		return "COMMIT"
	}
	return "ROLLBACK"
}

// transaction lowers a TransactionStmt. Every transaction is PostgreSQL's
// REPEATABLE READ (snapshot isolation, first committer wins), so BEGIN
// accepts that isolation level (and READ WRITE, the default) and refuses
// the levels it would not honour: READ COMMITTED would promise fresh
// snapshots per statement, SERIALIZABLE PostgreSQL's SSI checks. Savepoints,
// two-phase commit and AND CHAIN are refused.
func (l *lowerer) transaction(s *pg_query.TransactionStmt) (Statement, error) {
	var act TxnAction
	switch s.Kind {
	case pg_query.TransactionStmtKind_TRANS_STMT_BEGIN, pg_query.TransactionStmtKind_TRANS_STMT_START:
		act = TxnBegin
	case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT:
		act = TxnCommit
	case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		act = TxnRollback
	case pg_query.TransactionStmtKind_TRANS_STMT_SAVEPOINT, pg_query.TransactionStmtKind_TRANS_STMT_RELEASE,
		pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return nil, fmt.Errorf("%w: savepoints", ErrUnsupported)
	default:
		return nil, fmt.Errorf("%w: two-phase commit", ErrUnsupported)
	}
	if s.Chain {
		return nil, fmt.Errorf("%w: AND CHAIN", ErrUnsupported)
	}
	for _, o := range s.Options {
		d := o.GetDefElem()
		if d == nil {
			return nil, fmt.Errorf("%w: transaction option %s", ErrUnsupported, nodeName(o))
		}
		val := ""
		if c := d.Arg.GetAConst(); c != nil {
			val = strings.ToLower(c.GetSval().GetSval())
		}
		switch {
		case d.Defname == "transaction_isolation" && val == "repeatable read":
		case d.Defname == "transaction_read_only" && d.Arg.GetAConst().GetIval().GetIval() == 0:
			// READ WRITE: the default.
		case d.Defname == "transaction_isolation":
			return nil, fmt.Errorf("%w: ISOLATION LEVEL %s (transactions are REPEATABLE READ: snapshot isolation)", ErrUnsupported, strings.ToUpper(val))
		case d.Defname == "transaction_read_only":
			return nil, fmt.Errorf("%w: READ ONLY transactions", ErrUnsupported)
		default:
			return nil, fmt.Errorf("%w: transaction option %s", ErrUnsupported, d.Defname)
		}
	}
	return &Transaction{Action: act}, nil
}
