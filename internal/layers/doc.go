// Package layers holds no code, only tests of the repository's shape:
// every import of the module's packages runs down the layers drawn in
// docs/architecture.md (issue 27: "no import runs back up a layer"), and
// the drawing names every package (layers_test.go); every package, nested
// modules and commands included, keeps its package comment in doc.go and
// only there (docfiles_test.go). A new package gets a row in rows and in
// the drawing, and a doc.go.
package layers
