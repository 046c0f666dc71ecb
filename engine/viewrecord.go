package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

// A view catalog record holds every view of the database at one catalog
// version (views.go). It is framed by table.SealEnvelope, as the table
// layer frames its own small records (table/envelope.go):
//
//	magic "SRVW" (4) | u16 format version (1) | u16 flags (0) |
//	u32 body length | body | u32 CRC32C (Castagnoli) of every byte before it
//
// and the body is JSON: {"seq": N, "views": [{"name", "sql", "columns",
// "types", "reads"}, ...]}, the views sorted by name. The reader checks
// every part (size, magic, version, flags, length, checksum, the body's
// fields and that seq is the version its path names): a bad record is
// ErrCorruptView naming it, never a panic or a half-read catalog.
const (
	viewMagic   = "SRVW"
	viewVersion = 1
)

// ErrCorruptView: a view catalog record that does not decode.
var ErrCorruptView = errkind.New(errkind.Corrupt, "engine: corrupt view catalog record")

// viewBody is a record's JSON body.
type viewBody struct {
	Seq   uint64        `json:"seq"`
	Views []viewBodyDef `json:"views"`
}

type viewBodyDef struct {
	Name    string   `json:"name"`
	SQL     string   `json:"sql"`
	Columns []string `json:"columns"`
	Types   []string `json:"types"`
	Reads   []string `json:"reads"`
}

// encodeViews frames the catalog of views at version seq.
func encodeViews(seq uint64, views map[string]*sql.ViewDef) ([]byte, error) {
	body := viewBody{Seq: seq, Views: []viewBodyDef{}}
	names := make([]string, 0, len(views))
	for n := range views {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		v := views[n]
		body.Views = append(body.Views, viewBodyDef{Name: n, SQL: v.SQL, Columns: v.Columns, Types: v.Types, Reads: v.Reads})
	}
	js, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("engine: view catalog: %w", err)
	}
	return table.SealEnvelope(viewMagic, viewVersion, js), nil
}

// decodeViews reads the record b stored at path as version seq.
func decodeViews(path string, seq uint64, b []byte) (map[string]*sql.ViewDef, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrCorruptView, path, fmt.Sprintf(format, args...))
	}
	js, err := table.OpenEnvelope(b, viewMagic, viewVersion, bad)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	var body viewBody
	if err := dec.Decode(&body); err != nil {
		return nil, bad("body: %v", err)
	}
	if dec.More() {
		return nil, bad("data after the body")
	}
	if body.Seq != seq {
		return nil, bad("version %d stored as version %d", body.Seq, seq)
	}
	views := make(map[string]*sql.ViewDef, len(body.Views))
	for _, v := range body.Views {
		switch {
		case !tableName.MatchString(v.Name) || v.Name != strings.ToLower(v.Name):
			return nil, bad("bad view name %q", v.Name)
		case views[v.Name] != nil:
			return nil, bad("view %q twice", v.Name)
		case v.SQL == "":
			return nil, bad("view %q has no SELECT", v.Name)
		case len(v.Columns) == 0 || len(v.Columns) != len(v.Types):
			return nil, bad("view %q: %d columns, %d types", v.Name, len(v.Columns), len(v.Types))
		}
		views[v.Name] = &sql.ViewDef{Name: v.Name, SQL: v.SQL, Columns: v.Columns, Types: v.Types, Reads: v.Reads}
	}
	return views, nil
}
