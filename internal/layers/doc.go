// Package layers holds no code: its test checks that every import of the
// module's packages runs down the layers drawn in docs/architecture.md
// (issue 27: "no import runs back up a layer"), and that the drawing names
// every package. A new package gets a row in both places.
package layers
