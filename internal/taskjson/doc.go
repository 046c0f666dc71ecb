// Package taskjson is the one strict JSON decoder of the plan / task /
// result encodings (table's compaction and recluster, access's index
// build): a value must be exactly one JSON object of its type, with no
// unknown field and nothing after it, and then pass its own validation.
//
// It sits below both table and access (which imports table), so the
// caller names the sentinel its errors wrap (table.ErrTask).
package taskjson
