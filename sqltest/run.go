package sqltest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/value"
)

// Config is one metamorphic configuration.
type Config struct {
	BatchSize int
	NoIndex   bool
	Threads   int // engine.Options.Threads: 0 or 1 serial, above 1 partitioned
}

func (c Config) String() string {
	s := fmt.Sprintf("batch=%d", c.BatchSize)
	if c.NoIndex {
		s += ",noindex"
	}
	if c.Threads > 1 {
		s += fmt.Sprintf(",threads=%d", c.Threads)
	}
	return s
}

// parallel reports whether the configuration plans partitioned queries.
func (c Config) parallel() bool { return c.Threads > 1 }

// Configs are the configurations every file runs under; the first one
// produces the output -rewrite records. Threads 2 and 4 run partitioned
// plans (a scan of fewer fragments than threads has fewer partitions);
// batch size 2 with 4 threads cuts the partitions' work into the most
// pieces, where a race between partitions would show.
var Configs = []Config{
	{BatchSize: 8192}, {BatchSize: 1}, {BatchSize: 2}, {BatchSize: 8192, NoIndex: true}, {BatchSize: 2, NoIndex: true},
	{BatchSize: 8192, Threads: 2}, {BatchSize: 8192, Threads: 4}, {BatchSize: 2, Threads: 4}, {BatchSize: 8192, NoIndex: true, Threads: 4},
}

// LargeConfigs replace Configs for files named *_large.slt (100K-row
// inputs): batch sizes of 1 or 2 there would run 100K batches through
// every operator and measure allocator overhead, not logic.
var LargeConfigs = []Config{
	{BatchSize: 8192}, {BatchSize: 1024}, {BatchSize: 8192, NoIndex: true}, {BatchSize: 1024, NoIndex: true},
	{BatchSize: 8192, Threads: 2}, {BatchSize: 1024, NoIndex: true, Threads: 4},
}

// Failure is one mismatch.
type Failure struct {
	Record *Record
	Msg    string
}

func (f Failure) Error() string {
	return fmt.Sprintf("line %d (%s): %s", f.Record.Line, f.Record.Header, f.Msg)
}

// Run executes the records against db. With rewrite, query records get
// their Expect replaced by the actual output instead of being compared.
func Run(ctx context.Context, db *engine.DB, recs []*Record, cfg Config, rewrite bool) []Failure {
	var fails []Failure
	params := map[string]any{}
	for _, r := range recs {
		if (r.Skip == "noindex" && cfg.NoIndex) || (r.Skip == "index" && !cfg.NoIndex) ||
			(r.Skip == "parallel" && cfg.parallel()) || (r.Skip == "serial" && !cfg.parallel()) {
			continue
		}
		switch r.Kind {
		case KindBind:
			v, err := bindValue(r.Args)
			if err != nil {
				fails = append(fails, Failure{r, err.Error()})
				continue
			}
			params[r.Param] = v
		case KindStatement:
			res, err := db.Exec(ctx, r.SQL, params)
			res.Release()
			if r.Error {
				if err == nil {
					fails = append(fails, Failure{r, "statement succeeded, expected an error"})
				} else if !strings.Contains(err.Error(), r.ErrText) {
					fails = append(fails, Failure{r, fmt.Sprintf("error %q does not contain %q", err, r.ErrText)})
				}
			} else if err != nil {
				fails = append(fails, Failure{r, "statement failed: " + err.Error()})
			}
		case KindQuery:
			res, err := db.Exec(ctx, r.SQL, params)
			if r.Error {
				res.Release()
				if err == nil {
					fails = append(fails, Failure{r, "query succeeded, expected an error"})
				} else if !strings.Contains(err.Error(), r.ErrText) {
					fails = append(fails, Failure{r, fmt.Sprintf("error %q does not contain %q", err, r.ErrText)})
				}
				continue
			}
			if err != nil {
				fails = append(fails, Failure{r, "query failed: " + err.Error()})
				continue
			}
			got, ferr := formatResult(res, r.Types)
			res.Release()
			if ferr != nil {
				fails = append(fails, Failure{r, ferr.Error()})
				continue
			}
			if r.RowSort {
				slices.Sort(got)
			}
			if rewrite {
				r.Expect = got
				continue
			}
			if !slices.Equal(got, r.Expect) {
				fails = append(fails, Failure{r, diff(r.Expect, got)})
			}
		}
	}
	return fails
}

func bindValue(args []string) (any, error) {
	if len(args) > 0 && args[0] == "text" {
		return bindText(args[1:]), nil
	}
	if len(args) == 3 && args[0] == "series" {
		lo, err1 := strconv.ParseInt(args[1], 10, 64)
		hi, err2 := strconv.ParseInt(args[2], 10, 64)
		if err1 != nil || err2 != nil || hi < lo {
			return nil, fmt.Errorf("bind series: bad bounds %v", args[1:])
		}
		v := make([]int64, 0, hi-lo+1)
		for x := lo; x <= hi; x++ {
			v = append(v, x)
		}
		return v, nil
	}
	nulls := slices.Contains(args, "NULL")
	var plain []int64
	var withNull []*int64
	for _, a := range args {
		if a == "NULL" {
			withNull = append(withNull, nil)
			continue
		}
		x, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bind: %q is not an integer", a)
		}
		plain = append(plain, x)
		withNull = append(withNull, &x)
	}
	if nulls {
		return withNull, nil
	}
	if plain == nil {
		plain = []int64{}
	}
	return plain, nil
}

// bindText binds a text list: []string, or []*string when a NULL is among
// the values.
func bindText(args []string) any {
	if !slices.Contains(args, "NULL") {
		return append([]string{}, args...)
	}
	out := make([]*string, len(args))
	for i, a := range args {
		if a != "NULL" {
			out[i] = &args[i]
		}
	}
	return out
}

// formatResult renders rows as space-separated values.
func formatResult(res *engine.Result, types string) ([]string, error) {
	if res.Schema == nil {
		return nil, fmt.Errorf("statement returned no result set")
	}
	if len(types) != res.Schema.NumFields() {
		return nil, fmt.Errorf("query declares %d columns (%s), result has %d", len(types), types, res.Schema.NumFields())
	}
	var out []string
	for _, b := range res.Batches {
		for r := 0; r < int(b.NumRows()); r++ {
			vals := make([]string, b.NumCols())
			for c := range vals {
				v, err := formatValue(b.Column(c), r, types[c])
				if err != nil {
					return nil, fmt.Errorf("column %d: %w", c, err)
				}
				vals[c] = v
			}
			out = append(out, strings.Join(vals, " "))
		}
	}
	return out, nil
}

// formatValue is row i of a as the record writes it: PostgreSQL's text
// output (value.Text: floats as float8out and float4out, dates,
// timestamps and numerics as psql shows them), after the column's
// declared type letter is checked against the Arrow type. The record's
// own spellings are NULL, "(empty)" for an empty string and true/false
// for booleans (sqllogictest's).
func formatValue(a arrow.Array, i int, typ byte) (string, error) {
	if a.IsNull(i) {
		return "NULL", nil
	}
	if !typeMatches(typ, a) {
		return "", fmt.Errorf("type %c does not match %s", typ, a.DataType())
	}
	s, ok := value.Text(a, i)
	if !ok {
		return "", fmt.Errorf("type %c does not match %s", typ, a.DataType())
	}
	switch {
	case typ == 'B':
		return strconv.FormatBool(s == value.FormatBool(true)), nil
	case typ == 'T' && s == "":
		return "(empty)", nil
	}
	return s, nil
}

// typeMatches reports whether a record's type letter admits a: I the
// integers, R double precision and real, T text, date, timestamp and
// numeric, B boolean.
func typeMatches(typ byte, a arrow.Array) bool {
	switch typ {
	case 'I':
		switch a.(type) {
		case *array.Int64, *array.Int32, *array.Int16, *array.Uint64, *array.Uint32:
			return true
		}
	case 'R':
		return isFloat(a)
	case 'T':
		switch c := a.(type) {
		case *array.String, *array.Date32, *array.Decimal128:
			return true
		case *array.Timestamp:
			return c.DataType().(*arrow.TimestampType).Unit == arrow.Microsecond
		}
	case 'B':
		_, ok := a.(*array.Boolean)
		return ok
	}
	return false
}

func isFloat(a arrow.Array) bool {
	id := a.DataType().ID()
	return id == arrow.FLOAT32 || id == arrow.FLOAT64
}

func diff(want, got []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "expected %d rows, got %d", len(want), len(got))
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			fmt.Fprintf(&b, "\nfirst difference at row %d:\n  want: %q\n  got:  %q", i+1, w, g)
			break
		}
	}
	return b.String()
}
