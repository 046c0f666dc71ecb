package table

import "context"

// SetClaimHookForTest runs f before each claim of CommitTxn (with the
// table's name) and before its commit point (with "").
func SetClaimHookForTest(f func(ctx context.Context, table string) error) (restore func()) {
	old := claimHook
	claimHook = f
	return func() { claimHook = old }
}
