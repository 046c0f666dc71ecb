// Package deepsql generates SQL statements whose expressions are deep or
// long, one operator class at a time, for the tests and the fuzz target
// that check no statement can overflow the parser's stack (sql's
// MaxDepth): arithmetic, comparison chains, ||, CASE, function calls,
// parentheses, unary minus, AND/OR, NOT, casts, array subscripts,
// subqueries, set operations, and the flat lists (IN, VALUES) that must
// not count as depth.
//
// One generator serves every class: a table (forms) gives each class its
// four variants, each a nesting, a chain or a list with its own words,
// and says which variants are whole statements and which are flat.
package deepsql
