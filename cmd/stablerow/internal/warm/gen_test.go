package warm

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/pganalyze/pg_query_go/v6/parser"
)

var update = flag.Bool("update", false, "rewrite testdata/parse.pb and testdata/scan.pb from the parser")

// TestEmbeddedParserOutput: the parse tree and the scan tokens the warm-up
// decodes are what the parser returns for the seed take today (a stale
// pair would only cost speed: this keeps them current). Regenerate:
// go test ./cmd/stablerow/internal/warm -run TestEmbedded -update
func TestEmbeddedParserOutput(t *testing.T) {
	for _, c := range []struct {
		file     string
		embedded []byte
		produce  func(string) ([]byte, error)
		sql      string
	}{
		{"testdata/parse.pb", parsed, parser.ParseToProtobuf, seedSQL},
		{"testdata/scan.pb", scanned, parser.ScanToProtobuf, seedScanned},
	} {
		fresh, err := c.produce(c.sql)
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(c.file, fresh, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if !bytes.Equal(fresh, c.embedded) {
			t.Errorf("%s is not the parser's output for the seed take any more; regenerate: go test ./cmd/stablerow/internal/warm -run TestEmbedded -update", c.file)
		}
	}
}
