package warm

import (
	_ "embed"
	"fmt"
	"os"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	// Initialized before this package (imports are), so the warm-up's few
	// megabytes do not start the collection gcstart holds back.
	_ "github.com/stablerow/stablerow/cmd/stablerow/internal/gcstart"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// seedSQL is the README's seed take as sql hands it to the parser:
// its :name parameters already numbered (scanning comes first, on the
// text as written; see seedScanned).
const seedSQL = `SELECT v.ord, t._rowaddr, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`

// seedScanned is the seed take as the user writes it, which sql
// scans for :name parameters before it parses.
const seedScanned = `SELECT v.ord, t._rowaddr, t.k FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`

// plan is the Substrait plan SQL lowers the seed take to (binary protobuf
// of testdata/plan.json, which is `stablerow substrait -emit` of the seed
// take; cmd/stablerow's TestWarmPlanIsTheSeedTake keeps both current: a
// stale plan costs speed, never correctness).
//
//go:embed testdata/plan.pb
var plan []byte

// parsed and scanned are what pg_query's C parser hands back, as protobuf,
// for seedSQL and seedScanned (TestEmbeddedParserOutput keeps them
// current). Decoding them readies the same Go-side state as calling the
// parser, without running the C parser on the warm-up's thread, which
// would give that thread a parser memory context of its own (resident
// memory the main thread's parse does not share).
var (
	//go:embed testdata/parse.pb
	parsed []byte
	//go:embed testdata/scan.pb
	scanned []byte
)

// commands are the subcommands whose first statement the warm-up serves.
var commands = map[string]bool{"sql": true, "substrait": true}

func init() {
	if len(os.Args) > 1 && commands[os.Args[1]] {
		go func() { _ = run() }() // an error is the statement's to report, not the warm-up's
	}
}

// run builds the protobuf state of the seed take's parse tree, scan
// tokens and Substrait plan, in the order the main goroutine needs them;
// last, the encoding of the UNNEST's detail (a Struct in an Any: the
// lowering marshals it, the planner unmarshals it).
func run() error {
	if err := proto.Unmarshal(scanned, &pg_query.ScanResult{}); err != nil {
		return fmt.Errorf("warm: the seed take's scan tokens: %w", err)
	}
	if err := proto.Unmarshal(parsed, &pg_query.ParseResult{}); err != nil {
		return fmt.Errorf("warm: the seed take's parse tree: %w", err)
	}
	var p substraitpb.Plan
	if err := proto.Unmarshal(plan, &p); err != nil {
		return fmt.Errorf("warm: decoding the seed take's plan: %w", err)
	}
	st, err := structpb.NewStruct(map[string]any{"relation": "unnest", "ordinality": true, "param": 1, "element_type": "i64"})
	if err != nil {
		return fmt.Errorf("warm: the UNNEST detail: %w", err)
	}
	detail, err := anypb.New(st)
	if err != nil {
		return fmt.Errorf("warm: the UNNEST detail: %w", err)
	}
	if err := detail.UnmarshalTo(st); err != nil {
		return fmt.Errorf("warm: the UNNEST detail: %w", err)
	}
	return nil
}
