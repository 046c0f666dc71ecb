// Package value holds stablerow's SQL types and values one value at a
// time, as PostgreSQL 15 reads, writes, converts and compares them. It is
// a leaf: it imports only the standard library, arrow-go (for the Arrow
// types that carry the values) and errkind, so every layer above can use
// it, and the SQL front end, fileio, the test runners, bench and difftest
// parse and print a value exactly as the executor does.
//
// What it holds, by file:
//
//   - errors.go: the value errors (ErrInvalidArgument, ErrOutOfRange,
//     ErrDivisionByZero, ErrUnsupported, ErrEscape), typed through
//     errkind. exec/physexpr names the same variables, so errors.Is
//     matches either name and every message is unchanged.
//   - input.go, bool.go, float.go: PostgreSQL's input functions (boolin,
//     float8in and float4in) and the blanks they skip.
//   - format.go: the output functions: FormatFloat (float8out's shortest
//     round-trip text), FormatValue and Text (one Arrow cell as psql shows
//     it), FormatBool (boolout).
//   - decimal.go, dec128.go, decfloat.go: numeric(p, s) as decimal128:
//     numeric_in and numeric_out (ParseDecimal, FormatDecimal),
//     conversions to and from integers and floats, RescaleDecimal, and
//     the checked 128-bit arithmetic the decimal kernels build on.
//   - datetime.go: date and timestamp without time zone: ParseDate,
//     FormatDate, ParseTimestamp, FormatTimestamp, the conversions between
//     them and PostgreSQL's valid range.
//   - extract.go: extract and date_part fields (ParseExtractField, the
//     Field constants, ExtractNumericType) and a field of one value
//     (Parts, ExtractUnscaled, ExtractDouble, ExtractInteger).
//   - bpchar.go, sqltype.go: character(n) in the engine's form (TrimBlanks,
//     PadBlanks, CharCast's length coercion of one value) and the declared
//     SQL type a column records in its field metadata (SQLTypeKey,
//     CharTrimmed).
//   - compare.go: PostgreSQL's order of floats (CompareFloat: NaN last,
//     equal to itself; -0 equal to 0).
//   - like.go: like_escape (LikeEscape).
//
// Column-at-a-time evaluation is not here: exec/physexpr's kernels call these
// functions per row (or reimplement them as typed loops where a function
// per row is too slow, tested against them).
package value
