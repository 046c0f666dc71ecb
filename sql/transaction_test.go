package sql_test

import (
	"errors"
	"testing"

	"github.com/stablerow/stablerow/sql"
)

// Transaction control lowers to sql.Transaction in every spelling
// PostgreSQL accepts; what the engine would not honour is refused.
func TestTransactionStatement(t *testing.T) {
	for text, want := range map[string]sql.TxnAction{
		"BEGIN": sql.TxnBegin, "begin transaction": sql.TxnBegin, "BEGIN WORK": sql.TxnBegin,
		"START TRANSACTION": sql.TxnBegin, "BEGIN ISOLATION LEVEL REPEATABLE READ": sql.TxnBegin,
		"START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE": sql.TxnBegin,
		"COMMIT": sql.TxnCommit, "END": sql.TxnCommit, "COMMIT WORK": sql.TxnCommit,
		"ROLLBACK": sql.TxnRollback, "ABORT": sql.TxnRollback, "rollback transaction": sql.TxnRollback,
	} {
		stmts, err := sql.Parse(text, nil)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		got, ok := stmts[0].(*sql.Transaction)
		if !ok || got.Action != want {
			t.Fatalf("%s: got %#v, want action %d", text, stmts[0], want)
		}
	}
	for _, bad := range []string{
		"BEGIN ISOLATION LEVEL SERIALIZABLE", "BEGIN ISOLATION LEVEL READ COMMITTED", "BEGIN READ ONLY",
		"SAVEPOINT a", "ROLLBACK TO SAVEPOINT a", "RELEASE a", "COMMIT AND CHAIN", "PREPARE TRANSACTION 'x'",
		"BEGIN DEFERRABLE",
	} {
		if _, err := sql.Parse(bad, nil); !errors.Is(err, sql.ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", bad, err)
		}
	}
}
