package physexpr

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDecimalResult: the result type of decimal arithmetic (PostgreSQL's
// numeric keeps every digit of + - *; / as numdiv.go rounds it).
func TestDecimalResult(t *testing.T) {
	p, s, ok := DecimalResult(OpMul, 10, 2, 5, 3)
	require.True(t, ok)
	require.Equal(t, [2]int32{16, 5}, [2]int32{p, s})
	p, s, ok = DecimalResult(OpDiv, 10, 2, 5, 3)
	require.True(t, ok)
	require.Equal(t, [2]int32{38, 20}, [2]int32{p, s}) // numdiv.go: max(s1, s2, 20)
	_, s, _ = DecimalResult(OpDiv, 38, 30, 5, 3)
	require.Equal(t, int32(30), s)
	_, _, ok = DecimalResult(OpAnd, 10, 2, 5, 3)
	require.False(t, ok)
}
