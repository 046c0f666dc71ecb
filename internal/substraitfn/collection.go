package substraitfn

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/substrait-io/substrait"
	"github.com/substrait-io/substrait-go/v8/extensions"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Standard URNs of the functions the SQL front end emits.
const (
	URNComparison = extensions.SubstraitDefaultURNPrefix + "functions_comparison"
	URNBoolean    = extensions.SubstraitDefaultURNPrefix + "functions_boolean"
	URNArithmetic = extensions.SubstraitDefaultURNPrefix + "functions_arithmetic"
	URNAggregate  = extensions.SubstraitDefaultURNPrefix + "functions_aggregate_generic"
	URNString     = extensions.SubstraitDefaultURNPrefix + "functions_string"   // string functions, string_agg
	URNRounding   = extensions.SubstraitDefaultURNPrefix + "functions_rounding" // round, floor, ceil
	URNDatetime   = extensions.SubstraitDefaultURNPrefix + "functions_datetime" // extract
	// round, floor, ceil of decimals
	URNRoundingDecimal = extensions.SubstraitDefaultURNPrefix + "functions_rounding_decimal"
	// URNPackedList declares stablerow's packed list type (plan/packedlist.go).
	URNPackedList = "extension:io.stablerow:packed_list"
)

// skipped are the files substrait-go's default collection skips too.
var skipped = map[string]bool{"unknown.yaml": true}

var collection = sync.OnceValues(loadStubs)

// Collection returns the collection stablerow plans against: every URN of
// the standard extension files, each declared without its functions. It
// is built once, on first use, in well under a millisecond, and is never
// modified after (safe for concurrent use).
func Collection() (*extensions.Collection, error) { return collection() }

// loadStubs declares each standard file's URN, read from its "urn:" line
// (the files are YAML documents whose top-level urn key comes first).
func loadStubs() (*extensions.Collection, error) {
	fsys := substrait.GetSubstraitExtensionsFS()
	ents, err := fsys.ReadDir("extensions")
	if err != nil {
		return nil, fmt.Errorf("substraitfn: standard extensions: %w", err)
	}
	c := &extensions.Collection{}
	for _, e := range ents {
		if e.IsDir() || skipped[e.Name()] || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		urn, err := readURN(fsys, path.Join("extensions", e.Name()))
		if err != nil {
			return nil, err
		}
		if err := c.Load(extensions.SubstraitDefaultURIPrefix+e.Name(), strings.NewReader("urn: "+urn+"\n")); err != nil {
			return nil, fmt.Errorf("substraitfn: declaring %s: %w", urn, err)
		}
	}
	// stablerow's own URN, which every plan holding a long IN list
	// declares: without it each such plan would load a fresh collection
	// (withPlanURNs).
	if err := c.Load("stablerow:packed_list.yaml", strings.NewReader("urn: "+URNPackedList+"\n")); err != nil {
		return nil, fmt.Errorf("substraitfn: declaring %s: %w", URNPackedList, err)
	}
	return c, nil
}

// readURN returns the value of the first top-level "urn:" line of a file.
func readURN(fsys fs.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", fmt.Errorf("substraitfn: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "urn:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("substraitfn: %s: %w", name, err)
	}
	return "", fmt.Errorf("substraitfn: %s has no urn", name)
}

// Full returns substrait-go's default collection, every standard function
// declared (parsed from YAML once per process, 130-280 ms).
func Full() (*extensions.Collection, error) { return extensions.GetDefaultCollection() }

// FromProto is substrait-go's FromProto against Collection. The functions
// are read without declarations (the collection has none): each call
// keeps its plan's output type and its simple name, which is all the
// planner reads. To that end FromProto reads a shallow copy of p whose
// function declarations are renamed from "add:i64_i64" to "add:" (p is not
// modified): substrait-go builds a declaration-less call's variant by
// parsing the argument types in its name with an ANTLR grammar, which is
// slow on first use and panics on names its grammar lacks ("bool"); and a
// variant named exactly as declared keeps substrait-go from allocating a
// fresh anchor for it, which can overwrite another function's anchor when
// a producer numbers them sparsely.
//
// If that read fails (or panics), p is read again against Full, so a plan
// that needs a real declaration (a user-defined type) reads as it always
// did, at the cost of the full load for that plan only.
func FromProto(p *substraitpb.Plan) (sp *splan.Plan, err error) {
	c, err := Collection()
	if err != nil {
		return nil, err
	}
	if c, err = withPlanURNs(c, p); err != nil {
		return nil, err
	}
	if sp, err = lightFromProto(p, c); err == nil {
		return sp, nil
	}
	fallbacks.Add(1)
	full, ferr := Full()
	if ferr != nil {
		return nil, fmt.Errorf("substraitfn: %w (default collection: %w)", err, ferr)
	}
	return fullFromProto(p, full, err)
}

// fullFromProto reads p against the full collection. substrait-go panics
// on some malformed plans there that the light read refused cleanly (a
// declared signature its type parser cannot read, "equal:sny_any", of a
// function the collection lacks; found by FuzzSubstrait): the plan is
// then refused with the light read's error, lightErr.
func fullFromProto(p *substraitpb.Plan, full *extensions.Collection, lightErr error) (sp *splan.Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			if errors.Is(lightErr, errLightPanic) {
				panic(r) // both reads panicked: a substrait-go bug the caller reports
			}
			sp, err = nil, lightErr
		}
	}()
	return splan.FromProto(p, full)
}

// errLightPanic marks a light read that panicked (see fullFromProto).
var errLightPanic = errors.New("substraitfn: substrait-go panicked reading the plan")

// fallbacks counts the plans FromProto read against the full collection.
var fallbacks atomic.Int64

// Fallbacks is the number of plans FromProto has read against the full
// collection in this process (zero for plans the SQL front end lowered).
func Fallbacks() int64 { return fallbacks.Load() }

func lightFromProto(p *substraitpb.Plan, c *extensions.Collection) (sp *splan.Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			// The plan is read again against the full collection, whose
			// error (or panic) the caller sees; this one only decides that.
			sp, err = nil, fmt.Errorf("%w (%T)", errLightPanic, r)
		}
	}()
	return splan.FromProto(simpleNames(p), c)
}

// simpleNames returns a shallow copy of p whose function declarations are
// named "name:" (see FromProto).
func simpleNames(p *substraitpb.Plan) *substraitpb.Plan {
	q := &substraitpb.Plan{}
	src, dst := p.ProtoReflect(), q.ProtoReflect()
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		dst.Set(fd, v)
		return true
	})
	decls := make([]*extpb.SimpleExtensionDeclaration, len(p.GetExtensions()))
	for i, d := range p.GetExtensions() {
		decls[i] = d
		f := d.GetExtensionFunction()
		if f == nil {
			continue
		}
		name, _, _ := strings.Cut(f.GetName(), ":")
		decls[i] = &extpb.SimpleExtensionDeclaration{MappingType: &extpb.SimpleExtensionDeclaration_ExtensionFunction_{
			ExtensionFunction: &extpb.SimpleExtensionDeclaration_ExtensionFunction{
				ExtensionUrnReference: f.GetExtensionUrnReference(),
				FunctionAnchor:        f.GetFunctionAnchor(),
				Name:                  name + ":",
			},
		}}
	}
	q.Extensions = decls
	return q
}

// withPlanURNs returns c, or, when p declares URNs c lacks (an outside
// producer's own extensions, URNs migrated from unknown URIs), a fresh
// collection of c's stubs and stubs for those URNs: the functions they
// declare then read as custom functions, and the planner names the first
// one it does not implement rather than substrait-go refusing the whole
// plan for an unknown URN. A URN of a form substrait-go does not accept
// is left to its error.
func withPlanURNs(c *extensions.Collection, p *substraitpb.Plan) (*extensions.Collection, error) {
	var extra []string
	for _, u := range p.GetExtensionUrns() {
		if urn := u.GetUrn(); !c.URNLoaded(urn) && !slices.Contains(extra, urn) {
			extra = append(extra, urn)
		}
	}
	if len(extra) == 0 {
		return c, nil
	}
	fresh, err := loadStubs()
	if err != nil {
		return nil, err
	}
	for _, urn := range extra {
		if err := fresh.Load("stablerow-plan:"+urn, strings.NewReader("urn: "+strconv.Quote(urn)+"\n")); err != nil {
			return c, nil //nolint:nilerr // substrait-go reports the URN it refuses
		}
	}
	return fresh, nil
}

// standardFiles maps each standard extension file name to its URN.
var standardFiles = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	fsys := substrait.GetSubstraitExtensionsFS()
	ents, err := fsys.ReadDir("extensions")
	if err != nil {
		return m
	}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		if urn, err := readURN(fsys, path.Join("extensions", e.Name())); err == nil {
			m[e.Name()] = urn
		}
	}
	return m
})

// StandardURN returns the URN of a standard extension file named file
// ("functions_comparison.yaml"), the target of the URI to URN migration.
func StandardURN(file string) (string, bool) {
	urn, ok := standardFiles()[file]
	return urn, ok
}
