package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// DecodePlan reads a Substrait plan in either of its interchange forms:
// protobuf JSON (first non-space byte '{') or binary protobuf. Extensions
// declared through the removed URI fields are migrated to URNs (see
// migrate.go), and join types spelled by their old names are renamed
// (renamedJoinTypes). Other unknown JSON fields are an error, not silently
// dropped.
func DecodePlan(data []byte) (*substraitpb.Plan, error) {
	var pb substraitpb.Plan
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%w: empty plan", ErrInvalidPlan)
	}
	legacy := &legacyURIs{}
	if trimmed[0] == '{' {
		js, l, err := jsonURIs(trimmed)
		if err != nil {
			return nil, err
		}
		if err := protojson.Unmarshal(js, &pb); err != nil {
			return nil, fmt.Errorf("%w: JSON: %w", ErrInvalidPlan, err)
		}
		legacy = l
	} else {
		if err := proto.Unmarshal(data, &pb); err != nil {
			return nil, fmt.Errorf("%w: protobuf: %w", ErrInvalidPlan, err)
		}
		l, err := binaryURIs(&pb, true)
		if err != nil {
			return nil, err
		}
		legacy = l
	}
	migrateURIs(&pb, legacy, true)
	return &pb, nil
}

// EncodeJSON writes a plan as indented protobuf JSON.
func EncodeJSON(p *substraitpb.Plan) ([]byte, error) {
	return protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(p)
}

// JSON names (both spellings protojson accepts) of the removed fields.
var (
	jsonURIsKeys      = []string{"extensionUris", "extension_uris"}
	jsonURIAnchorKeys = []string{"extensionUriAnchor", "extension_uri_anchor"}
	jsonURIRefKeys    = []string{"extensionUriReference", "extension_uri_reference"}
	jsonDeclKeys      = []string{"extensionFunction", "extension_function", "extensionType", "extension_type", "extensionTypeVariation", "extension_type_variation"}
)

// jsonURIs takes the removed URI fields out of a JSON plan: the JSON
// without them, and what they declared; it also renames the join types
// of older Substrait (renamedJoinTypes). A plan without either is
// returned as it is, unparsed.
func jsonURIs(js []byte) ([]byte, *legacyURIs, error) {
	l := &legacyURIs{}
	if !bytes.Contains(js, []byte("xtensionUri")) && !bytes.Contains(js, []byte("xtension_uri")) && !hasRenamedJoinType(js) {
		return js, l, nil
	}
	bad := func(format string, args ...any) ([]byte, *legacyURIs, error) {
		return nil, nil, fmt.Errorf("%w: JSON: %s", ErrInvalidPlan, fmt.Sprintf(format, args...))
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return bad("%v", err)
	}
	for _, k := range jsonURIsKeys {
		v, ok := top[k]
		if !ok {
			continue
		}
		delete(top, k)
		list, ok := v.([]any)
		if !ok && v != nil {
			return bad("%s is not a list", k)
		}
		for i, e := range list {
			o, ok := e.(map[string]any)
			if !ok {
				return bad("%s[%d] is not an object", k, i)
			}
			anchor, err := jsonUint32(o, jsonURIAnchorKeys)
			if err != nil {
				return bad("%s[%d]: %v", k, i, err)
			}
			uri, ok := o["uri"].(string)
			if !ok && o["uri"] != nil {
				return bad("%s[%d].uri is not a string", k, i)
			}
			l.addURI(anchor, uri)
		}
	}
	exts, _ := top["extensions"].([]any)
	for i, e := range exts {
		o, _ := e.(map[string]any)
		for _, dk := range jsonDeclKeys {
			d, ok := o[dk].(map[string]any)
			if !ok {
				continue
			}
			for _, rk := range jsonURIRefKeys {
				if _, ok := d[rk]; !ok {
					continue
				}
				ref, err := jsonUint32(d, []string{rk})
				if err != nil {
					return bad("extensions[%d].%s: %v", i, dk, err)
				}
				delete(d, rk)
				l.addRef(i, ref)
			}
		}
	}
	renameJoinTypes(top)
	out, err := json.Marshal(top)
	if err != nil {
		return bad("%v", err)
	}
	return out, l, nil
}

// renamedJoinTypes are the JoinRel.JoinType names of older Substrait,
// which renamed them keeping their numbers (SEMI is 5, LEFT_SEMI is
// 5): DuckDB's extension still writes them (TPC-H Q18's IN subquery as a
// JOIN_TYPE_SEMI). A binary plan carries the number and reads as it
// always did; in JSON protojson knows only the current names, so the old
// ones are renamed before it reads the plan.
var renamedJoinTypes = map[string]string{
	"JOIN_TYPE_SEMI":   "JOIN_TYPE_LEFT_SEMI",
	"JOIN_TYPE_ANTI":   "JOIN_TYPE_LEFT_ANTI",
	"JOIN_TYPE_SINGLE": "JOIN_TYPE_LEFT_SINGLE",
}

// hasRenamedJoinType reports whether a JSON plan may spell a join type by
// its old name (a cheap test on the bytes; renameJoinTypes decides).
func hasRenamedJoinType(js []byte) bool {
	for old := range renamedJoinTypes {
		if bytes.Contains(js, []byte(`"`+old+`"`)) {
			return true
		}
	}
	return false
}

// renameJoinTypes renames the old join type names of every JoinRel
// ({"join": {"type": ...}}) under v; a string that is not a join's type
// is left alone, whatever it holds.
func renameJoinTypes(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if j, ok := c.(map[string]any); ok && k == "join" {
				if t, ok := j["type"].(string); ok {
					if n, ok := renamedJoinTypes[t]; ok {
						j["type"] = n
					}
				}
			}
			renameJoinTypes(c)
		}
	case []any:
		for _, c := range x {
			renameJoinTypes(c)
		}
	}
}

// jsonUint32 reads a uint32 field (a JSON number or decimal string, as
// protojson writes and accepts it) under the first of keys present; absent
// is 0.
func jsonUint32(o map[string]any, keys []string) (uint32, error) {
	for _, k := range keys {
		v, ok := o[k]
		if !ok || v == nil {
			continue
		}
		var s string
		switch x := v.(type) {
		case json.Number:
			s = x.String()
		case string:
			s = x
		default:
			return 0, fmt.Errorf("%s is not a number", k)
		}
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("%s = %q is not a uint32", k, s)
		}
		return uint32(n), nil
	}
	return 0, nil
}
