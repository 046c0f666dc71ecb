package duck

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/internal/fuzzseed"
)

func profileSeeds() [][]byte {
	return [][]byte{
		[]byte(`{"latency":0.0742,"children":[{"operator_name":"ORDER_BY","children":[{"operator_name":"HASH_JOIN","extra_info":{"Join Type":"RIGHT"},"children":[{"operator_name":"TABLE_SCAN","operator_rows_scanned":9997302,"extra_info":{"Table":"memory.main.t","Type":"Sequential Scan"}},{"operator_name":"TABLE_SCAN","operator_rows_scanned":10000,"extra_info":{"Table":"memory.main.ids_v","Type":"Sequential Scan"}}]}]}]}`),
		[]byte(`{"children":[{"operator_name":"SEQ_SCAN","extra_info":{"Table":7}}]}`),
		[]byte(`{"children":[{"operator_name":"X","extra_info":[1,2]}]}`),
		[]byte(`{}`),
		[]byte(`[`),
		[]byte(``),
	}
}

// TestSummarizePlan pins the summary of a DuckDB profile.
func TestSummarizePlan(t *testing.T) {
	got, err := SummarizePlan(string(profileSeeds()[0]))
	require.NoError(t, err)
	require.Equal(t, "ORDER_BY > HASH_JOIN RIGHT > [TABLE_SCAN t (Sequential Scan, 9997302 rows read); "+
		"TABLE_SCAN ids_v (Sequential Scan, 10000 rows read)] (total 74.2 ms)", got)
	_, err = SummarizePlan("[")
	require.ErrorIs(t, err, ErrUnexpectedType)
}

// TestCorpus rewrites testdata/fuzz/FuzzSummarizePlan on request.
func TestCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzSummarizePlan", profileSeeds())
}

// FuzzSummarizePlan: any profile text gives a summary or ErrUnexpectedType,
// never a panic.
func FuzzSummarizePlan(f *testing.F) {
	for _, s := range profileSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := SummarizePlan(string(data)); err != nil {
			require.ErrorIs(t, err, ErrUnexpectedType)
		}
	})
}
