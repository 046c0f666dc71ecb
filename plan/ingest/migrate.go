package ingest

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// URI to URN migration.
//
// Substrait 0.74 moved extension declarations from URIs
// (Plan.extension_uris, declarations' extension_uri_reference) to URNs
// ("extension:<owner>:<id>"), and substrait-protobuf v0.85 removed the
// URI fields. Every producer before the change (Isthmus, DuckDB, DataFusion,
// ibis) writes URIs. The plan is migrated on load as the spec's migration
// says: a URI naming one of the standard extension files (any host or
// none, "/functions_comparison.yaml" as Isthmus writes it,
// "https://github.com/substrait-io/substrait/blob/main/extensions/..."),
// maps to that file's URN ("extension:io.substrait:functions_comparison"),
// the directory of those files itself to StandardDirectoryURN;
// any other URI keeps a URN derived from it ("extension:<host>:<file
// stem>"). A declaration that has a URN reference keeps it.
//
// The removed fields reach us two ways: in JSON as keys protojson does not
// know (DecodePlan takes them out first, jsonURIs), in binary protobuf as
// unknown fields (field 1 of Plan, field 1 of each declaration;
// binaryURIs reads them with protowire).

// Field numbers of the removed URI fields.
const (
	planExtensionURIsField     = 1 // Plan.extension_uris (SimpleExtensionURI)
	uriAnchorField             = 1 // SimpleExtensionURI.extension_uri_anchor
	uriField                   = 2 // SimpleExtensionURI.uri
	declExtensionURIRefField   = 1 // extension_uri_reference of a function, type or type variation
	undeclaredURN              = "extension:unknown:undeclared"
	derivedURNOwnerWithoutHost = "unknown"
)

// legacyURIs is what a plan declares through the removed fields.
type legacyURIs struct {
	uris map[uint32]string // URI anchor -> URI
	refs map[int]uint32    // declaration index -> URI anchor it references
}

func (l *legacyURIs) empty() bool { return len(l.uris) == 0 && len(l.refs) == 0 }

// addURI and addRef record a URI and a declaration's reference (the maps
// are made on first use: most plans have neither).
func (l *legacyURIs) addURI(anchor uint32, uri string) {
	if l.uris == nil {
		l.uris = map[uint32]string{}
	}
	l.uris[anchor] = uri
}

func (l *legacyURIs) addRef(decl int, anchor uint32) {
	if l.refs == nil {
		l.refs = map[int]uint32{}
	}
	l.refs[decl] = anchor
}

// URNOfURI returns the URN a legacy extension URI migrates to.
func URNOfURI(uri string) string {
	u, err := url.Parse(uri)
	p, host := uri, ""
	if err == nil {
		p, host = u.Path, u.Host
		if u.Opaque != "" {
			p = u.Opaque
		}
	}
	if standardDirectory(host, p) {
		return StandardDirectoryURN
	}
	file := path.Base(strings.ReplaceAll(p, "\\", "/"))
	if urn, ok := substraitfn.StandardURN(file); ok {
		return urn
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(file, ".yaml"), ".yml")
	return derivedURN(host, stem)
}

// StandardDirectoryURN is the URN of the functions a plan declares under
// the standard extension directory rather than one of its files: DuckDB
// writes "https://github.com/substrait-io/substrait/blob/main/extensions/"
// for the functions whose file it does not track ("equal:i64_i64",
// "sum:decimal", "lt:date_date"). Such a function is a standard one, of
// whichever file declares its name; the planner knows the standard
// functions by name (byNameOwners holds the owner io.substrait), so the
// URN needs no file: "extension:io.substrait:extensions".
const StandardDirectoryURN = "extension:io.substrait:extensions"

// standardDirectory reports whether a URI's host and path name the
// directory of the standard extensions in the Substrait repository
// (github.com/substrait-io/substrait/blob/<ref>/extensions/, or its raw
// form), not a file in it. Another repository's "extensions/" is that
// repository's own extension and keeps a derived URN.
func standardDirectory(host, p string) bool {
	if !strings.HasSuffix(p, "/") {
		return false
	}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	switch {
	case host == "github.com" && len(parts) == 5 && parts[2] == "blob":
	case host == "raw.githubusercontent.com" && len(parts) == 4:
	default:
		return false
	}
	return parts[0] == "substrait-io" && parts[1] == "substrait" && parts[len(parts)-1] == "extensions"
}

// derivedURN makes a valid URN ("extension:<owner>:<id>", neither part
// empty or holding ':') from the parts of something that is not one.
func derivedURN(owner, id string) string {
	clean := func(s, def string) string {
		s = strings.Map(func(r rune) rune {
			if r == ':' || r == '/' || r <= ' ' {
				return '_'
			}
			return r
		}, s)
		if s == "" || s == "." || s == "_" {
			return def
		}
		return s
	}
	return "extension:" + clean(owner, derivedURNOwnerWithoutHost) + ":" + clean(id, "unnamed")
}

// validURN reports whether s has the form substrait-go accepts.
func validURN(s string) bool {
	rest, ok := strings.CutPrefix(s, "extension:")
	if !ok {
		return false
	}
	owner, id, ok := strings.Cut(rest, ":")
	return ok && owner != "" && id != "" && !strings.Contains(id, ":")
}

// binaryURIs takes the removed URI fields out of a plan read from binary
// protobuf (they arrive as unknown fields) and clears them.
func binaryURIs(p *substraitpb.Plan, apply bool) (*legacyURIs, error) {
	l := &legacyURIs{}
	pm := p.ProtoReflect()
	rest, err := eachField(pm.GetUnknown(), func(num protowire.Number, typ protowire.Type, v []byte) (bool, error) {
		if num != planExtensionURIsField || typ != protowire.BytesType {
			return false, nil
		}
		var anchor uint32
		var uri string
		if _, err := eachField(v, func(num protowire.Number, typ protowire.Type, b []byte) (bool, error) {
			switch {
			case num == uriAnchorField && typ == protowire.VarintType:
				x, n := protowire.ConsumeVarint(b)
				if n < 0 {
					return false, protowire.ParseError(n)
				}
				anchor = uint32(x)
			case num == uriField && typ == protowire.BytesType:
				uri = string(b)
			}
			return true, nil
		}); err != nil {
			return false, err
		}
		l.addURI(anchor, uri)
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: extension_uris: %w", ErrInvalidPlan, err)
	}
	if apply {
		pm.SetUnknown(rest)
	}
	for i, d := range p.GetExtensions() {
		var m protoreflect.Message
		switch t := d.GetMappingType().(type) {
		case *extpb.SimpleExtensionDeclaration_ExtensionFunction_:
			m = t.ExtensionFunction.ProtoReflect()
		case *extpb.SimpleExtensionDeclaration_ExtensionType_:
			m = t.ExtensionType.ProtoReflect()
		case *extpb.SimpleExtensionDeclaration_ExtensionTypeVariation_:
			m = t.ExtensionTypeVariation.ProtoReflect()
		default:
			continue
		}
		rest, err := eachField(m.GetUnknown(), func(num protowire.Number, typ protowire.Type, b []byte) (bool, error) {
			if num != declExtensionURIRefField || typ != protowire.VarintType {
				return false, nil
			}
			x, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return false, protowire.ParseError(n)
			}
			l.addRef(i, uint32(x))
			return true, nil
		})
		if err != nil {
			return nil, fmt.Errorf("%w: extensions[%d]: extension_uri_reference: %w", ErrInvalidPlan, i, err)
		}
		if apply {
			m.SetUnknown(rest)
		}
	}
	return l, nil
}

// eachField calls f on each field of raw protobuf bytes (v is a varint's
// bytes, or a length-delimited field's content) and returns the bytes of
// the fields f did not take.
func eachField(raw []byte, f func(num protowire.Number, typ protowire.Type, v []byte) (bool, error)) ([]byte, error) {
	var rest []byte
	for len(raw) > 0 {
		num, typ, n := protowire.ConsumeTag(raw)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, raw[n:])
		if m < 0 {
			return nil, protowire.ParseError(m)
		}
		field, v := raw[:n+m], raw[n:n+m]
		if typ == protowire.BytesType {
			b, k := protowire.ConsumeBytes(v)
			if k < 0 {
				return nil, protowire.ParseError(k)
			}
			v = b
		}
		took, err := f(num, typ, v)
		if err != nil {
			return nil, err
		}
		if !took {
			rest = append(rest, field...)
		}
		raw = raw[n+m:]
	}
	return rest, nil
}

// migrateURIs points every declaration at a URN: one with a declared URN
// reference keeps it; one with a URI reference gets the URI's URN; one
// that references nothing declared (DataFusion writes u32::MAX, older
// DuckDB and ibis no URI at all) gets undeclaredURN, since the planner
// knows functions by name. A URN that is not of the form substrait-go
// accepts (DuckDB writes "extension:io.substrait:" for some functions) is
// replaced by one derived from it. Reports whether anything changed.
func migrateURIs(p *substraitpb.Plan, l *legacyURIs, apply bool) bool {
	changed := false
	anchors := map[uint32]string{}
	byURN := map[string]uint32{}
	var next uint32 = 1
	for _, u := range p.GetExtensionUrns() {
		urn := u.GetUrn()
		if !validURN(urn) {
			changed = true
			owner, id := "", urn
			if rest, ok := strings.CutPrefix(urn, "extension:"); ok {
				owner, id, _ = strings.Cut(rest, ":")
			}
			urn = derivedURN(owner, id)
			if apply {
				u.Urn = urn
			}
		}
		anchors[u.GetExtensionUrnAnchor()] = urn
		if _, ok := byURN[urn]; !ok {
			byURN[urn] = u.GetExtensionUrnAnchor()
		}
		if u.GetExtensionUrnAnchor() >= next {
			next = u.GetExtensionUrnAnchor() + 1
		}
	}
	anchorOf := func(urn string) uint32 {
		if a, ok := byURN[urn]; ok {
			return a
		}
		a := next
		for _, taken := anchors[a]; taken; _, taken = anchors[a] {
			a++ // wrapped past the largest anchor
		}
		next = a + 1
		byURN[urn], anchors[a] = a, urn
		if apply {
			p.ExtensionUrns = append(p.ExtensionUrns, &extpb.SimpleExtensionURN{ExtensionUrnAnchor: a, Urn: urn})
		}
		return a
	}
	for i, d := range p.GetExtensions() {
		ref, set := declURNRef(d)
		if set == nil {
			continue
		}
		if _, ok := anchors[ref]; ok {
			continue
		}
		urn := undeclaredURN
		if uriRef, ok := l.refs[i]; ok {
			if uri, ok := l.uris[uriRef]; ok {
				urn = URNOfURI(uri)
			}
		}
		changed = true
		a := anchorOf(urn)
		if apply {
			set(a)
		}
	}
	return changed
}

// declURNRef returns a declaration's URN reference and a setter for it
// (nil for a declaration without a mapping).
func declURNRef(d *extpb.SimpleExtensionDeclaration) (uint32, func(uint32)) {
	switch t := d.GetMappingType().(type) {
	case *extpb.SimpleExtensionDeclaration_ExtensionFunction_:
		return t.ExtensionFunction.GetExtensionUrnReference(), func(a uint32) { t.ExtensionFunction.ExtensionUrnReference = a }
	case *extpb.SimpleExtensionDeclaration_ExtensionType_:
		return t.ExtensionType.GetExtensionUrnReference(), func(a uint32) { t.ExtensionType.ExtensionUrnReference = a }
	case *extpb.SimpleExtensionDeclaration_ExtensionTypeVariation_:
		return t.ExtensionTypeVariation.GetExtensionUrnReference(), func(a uint32) { t.ExtensionTypeVariation.ExtensionUrnReference = a }
	}
	return 0, nil
}
