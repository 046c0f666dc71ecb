// Package suggest finds the name a user most likely meant when the one
// they typed is unknown: "sqll" → "sql", "salse" → "sales". Every place that
// reports an unknown name (the CLI's subcommands; the SQL front end's
// tables, columns and functions) asks it, so the rule for what counts as "close" is one rule.
//
// Closeness is the optimal string alignment distance (Levenshtein plus the
// swap of two adjacent characters, the commonest typo), compared without
// regard to ASCII case. A candidate is offered only when the distance is
// small for the length of the name: at most 1 for names of up to 4
// characters, 2 up to 8, 3 beyond; psql and the DuckDB CLI are similarly
// sparing, because a far-fetched suggestion is worse than none.
package suggest
