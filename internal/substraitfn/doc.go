// Package substraitfn is the one owner of the Substrait functions stablerow
// speaks: the extension collection plans are built and read against, and
// the signatures of the standard functions the SQL front end emits.
//
// Why it exists: substrait-go's default collection parses every YAML file
// of the standard extensions (about 200 KB, each argument type through an
// ANTLR grammar) on first use, 130-280 ms of a fresh process, which
// `stablerow sql -e` paid on every call. stablerow uses a dozen functions.
// So:
//
//   - Collection declares every standard URN (read from the first lines of
//     substrait's embedded YAML files, not parsed) without any function.
//     substrait-go's FromProto needs the URNs to accept a plan; a function
//     it does not find becomes a custom variant carrying the plan's own
//     name and output type, which is all the planner reads.
//   - Scalar and Aggregate build the calls the SQL front end emits with
//     the compound names and output types the standard YAML gives them
//     (signatures.go), checked against substrait-go's default collection
//     by a test, so the plans are byte for byte what they were.
//   - FromProto reads a plan against Collection and, only if that fails,
//     against the full default collection, so an outside plan that needs a
//     declaration (a user-defined type) still reads as before.
//
// The default collection is still there for whoever asks (Full); a process
// that plans only its own SQL never loads it.
//
// It imports exec/physexpr for one rule only: the result type of decimal
// + - * / % and of an average's division is the one physexpr's kernels
// compute (physexpr.DecimalResult, DecimalDivScale), so a plan declares
// the type its execution produces.
package substraitfn
