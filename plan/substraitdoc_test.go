package plan_test

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/proto"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/fileio"
	"github.com/stablerow/stablerow/plan"
)

// substraitDoc is the document the planner's conventions are stated in,
// and that the code cites as "substrait.md §N".
const substraitDoc = "../docs/substrait.md"

// docBlock is one fenced code block of docs/substrait.md.
type docBlock struct {
	info string // the info string: "json $1=[5,3,9]", "text rows", ...
	line int    // line of the opening fence
	text string
}

func (b docBlock) word(i int) string {
	f := strings.Fields(b.info)
	if i < len(f) {
		return f[i]
	}
	return ""
}

// docBlocks reads the fenced blocks of docs/substrait.md and the numbers
// of its "## §N" headings, in order.
func docBlocks(t *testing.T) ([]docBlock, []int) {
	t.Helper()
	f, err := os.Open(substraitDoc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		blocks   []docBlock
		sections []int
		cur      *docBlock
		text     strings.Builder
	)
	heading := regexp.MustCompile(`^## §(\d+) `)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &docBlock{info: strings.TrimSpace(strings.TrimPrefix(line, "```")), line: n}
			text.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.text = text.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			text.WriteString(line + "\n")
		default:
			if m := heading.FindStringSubmatch(line); m != nil {
				k, _ := strconv.Atoi(m[1])
				sections = append(sections, k)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: unclosed code block", substraitDoc, cur.line)
	}
	return blocks, sections
}

// docParams reads the bindings of a json block's info string: $k=[a,b]
// a list, $k=v one value; integers are int64, anything else text.
func docParams(t *testing.T, b docBlock) map[int]any {
	t.Helper()
	params := map[int]any{}
	for _, w := range strings.Fields(b.info)[1:] {
		ref, val, ok := strings.Cut(strings.TrimPrefix(w, "$"), "=")
		k, err := strconv.Atoi(ref)
		if !ok || err != nil || !strings.HasPrefix(w, "$") {
			t.Fatalf("%s:%d: info word %q is not a binding $k=value", substraitDoc, b.line, w)
		}
		value := func(s string) (any, bool) {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n, true
			}
			return s, false
		}
		if inner, ok := strings.CutPrefix(val, "["); ok {
			items := strings.Split(strings.TrimSuffix(inner, "]"), ",")
			ints, strs := make([]int64, len(items)), make([]string, len(items))
			allInts := true
			for i, s := range items {
				v, isInt := value(s)
				allInts = allInts && isInt
				if isInt {
					ints[i] = v.(int64)
				}
				strs[i] = s
			}
			if allInts {
				params[k] = ints
			} else {
				params[k] = strs
			}
			continue
		}
		params[k], _ = value(val)
	}
	return params
}

// docRows runs a plan and returns its header and rows as the document
// writes them (columns joined by " | ", NULL for a null), and the
// physical plan that ran.
func docRows(ctx context.Context, db *engine.DB, js string, params map[int]any) (header string, out []string, ran string, err error) {
	rows, err := db.QuerySubstrait(ctx, []byte(js), params)
	if err != nil {
		return "", nil, "", err
	}
	defer rows.Close()
	var names []string
	for _, f := range rows.Schema().Fields() {
		names = append(names, f.Name)
	}
	for rows.Next() {
		b := rows.Batch()
		for i := range int(b.NumRows()) {
			vals := make([]string, b.NumCols())
			for j, c := range b.Columns() {
				vals[j] = "NULL"
				if c.IsValid(i) {
					vals[j] = c.ValueStr(i)
				}
			}
			out = append(out, strings.Join(vals, " | "))
		}
	}
	return strings.Join(names, " | "), out, rows.Plan(), rows.Err()
}

// docKinds are the errkind names a "text error KIND" block may give.
var docKinds = map[string]*errkind.Kind{
	"InvalidArgument": errkind.InvalidArgument, "Unsupported": errkind.Unsupported,
	"NotFound": errkind.NotFound, "OutOfRange": errkind.OutOfRange, "Internal": errkind.Internal,
}

// samePlan reports whether two plans are equal but for their version
// (the producer string names substrait-go's version and the platform).
func samePlan(t *testing.T, a, b []byte) bool {
	t.Helper()
	pa, err := plan.DecodePlan(a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := plan.DecodePlan(b)
	if err != nil {
		t.Fatal(err)
	}
	pa.Version, pb.Version = nil, nil
	return proto.Equal(pa, pb)
}

// TestSubstraitDoc keeps docs/substrait.md true of the code. Every json
// block is a plan that is run, through the engine as the CLI and the
// server run one, against the database its "sql setup" block builds:
// the "text rows" block after it must be its rows, or the "text error
// KIND" block its error, and a "text plan" block after the rows says
// what the physical plan that ran holds (and, with "no ", lacks). A "sql
// emits" block before a plan is SQL the front end lowers to exactly that
// plan. The function lists of §5 are
// the planner's, testdata/substrait/seed_take.json is one of the
// document's plans, and every "substrait.md §N" the code cites is a
// section of it.
func TestSubstraitDoc(t *testing.T) {
	blocks, sections := docBlocks(t)
	for i, k := range sections {
		if k != i+1 {
			t.Fatalf("%s: section headings are numbered %v, want 1, 2, 3, ...", substraitDoc, sections)
		}
	}

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem, Files: &fileio.Policy{Root: t.TempDir()}})
	setups := 0
	for _, b := range blocks {
		if b.info == "sql setup" {
			res, err := db.Exec(ctx, b.text, nil)
			if err != nil {
				t.Fatalf("%s:%d: setup: %v", substraitDoc, b.line, err)
			}
			res.Release()
			setups++
		}
	}
	if setups != 1 {
		t.Fatalf("%s has %d sql setup blocks, want 1", substraitDoc, setups)
	}

	seed, err := os.ReadFile("../testdata/substrait/seed_take.json")
	if err != nil {
		t.Fatal(err)
	}
	plans, seedFound := 0, false
	for i, b := range blocks {
		switch {
		case b.word(0) == "json":
		case b.info == "text plan" && (i < 2 || blocks[i-1].info != "text rows" || blocks[i-2].word(0) != "json"):
			t.Errorf("%s:%d: a text plan block not after a plan's rows: nothing checks it", substraitDoc, b.line)
			continue
		case b.info == "sql setup", b.info == "sql emits", b.info == "text rows", b.info == "text plan", strings.HasPrefix(b.info, "text error "), strings.HasPrefix(b.info, "text functions "):
			continue
		default:
			t.Errorf("%s:%d: a %q block: the document's blocks are json plans and the sql/text blocks the test reads", substraitDoc, b.line, b.info)
			continue
		}
		plans++
		at := func() string { return substraitDoc + ":" + strconv.Itoa(b.line) }
		if i+1 >= len(blocks) || (blocks[i+1].info != "text rows" && !strings.HasPrefix(blocks[i+1].info, "text error ")) {
			t.Errorf("%s: a plan not followed by its rows (```text rows) or error (```text error KIND)", at())
			continue
		}
		want := blocks[i+1]
		seedFound = seedFound || samePlan(t, []byte(b.text), seed)
		if i > 0 && blocks[i-1].info == "sql emits" {
			js, _, err := db.SubstraitOf(ctx, blocks[i-1].text)
			if err != nil {
				t.Errorf("%s: lowering the SQL above it: %v", at(), err)
			} else if !samePlan(t, []byte(b.text), js) {
				t.Errorf("%s: the SQL above it lowers to another plan:\n%s", at(), js)
			}
		}
		header, rows, ran, err := docRows(ctx, db, b.text, docParams(t, b))
		if kind, ok := strings.CutPrefix(want.info, "text error "); ok {
			k := docKinds[kind]
			msg := strings.TrimSpace(want.text)
			switch {
			case k == nil:
				t.Errorf("%s: unknown error kind %q", at(), kind)
			case err == nil:
				t.Errorf("%s: ran, want the error %q", at(), msg)
			case !errors.Is(err, k) || !strings.Contains(err.Error(), msg):
				t.Errorf("%s: error %v, want %s with %q", at(), err, kind, msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", at(), err)
			continue
		}
		lines := strings.Split(strings.TrimSpace(want.text), "\n")
		if header != lines[0] {
			t.Errorf("%s: columns %q, the document says %q", at(), header, lines[0])
		}
		got, exp := slices.Sorted(slices.Values(rows)), slices.Sorted(slices.Values(lines[1:]))
		if !slices.Equal(got, exp) {
			t.Errorf("%s: rows\n%s\nthe document says\n%s", at(), strings.Join(rows, "\n"), strings.Join(lines[1:], "\n"))
		}
		if i+2 < len(blocks) && blocks[i+2].info == "text plan" {
			for _, l := range strings.Split(strings.TrimSpace(blocks[i+2].text), "\n") {
				if x, no := strings.CutPrefix(l, "no "); no && strings.Contains(ran, x) {
					t.Errorf("%s: the plan that ran holds %q:\n%s", at(), x, ran)
				} else if !no && !strings.Contains(ran, l) {
					t.Errorf("%s: the plan that ran lacks %q:\n%s", at(), l, ran)
				}
			}
		}
	}
	if plans == 0 {
		t.Fatalf("%s has no plans", substraitDoc)
	}
	if !seedFound {
		t.Errorf("%s says testdata/substrait/seed_take.json is one of its plans; none is", substraitDoc)
	}

	scalar, aggregate := plan.FunctionNames()
	for _, c := range []struct {
		info string
		want []string
	}{{"text functions scalar", scalar}, {"text functions aggregate", aggregate}} {
		var doc []string
		for _, b := range blocks {
			if b.info == c.info {
				doc = append(doc, strings.Fields(b.text)...)
			}
		}
		slices.Sort(doc)
		slices.Sort(c.want)
		if !slices.Equal(doc, c.want) {
			t.Errorf("%s: the %q list is %v; the planner executes %v", substraitDoc, c.info, doc, c.want)
		}
	}

	checkCitations(t, sections)
}

// checkCitations: every "substrait.md §N" in the module's Go files names
// a section the document has.
func checkCitations(t *testing.T, sections []int) {
	t.Helper()
	cite := regexp.MustCompile(`substrait\.md §(\d+)`)
	cited := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range cite.FindAllStringSubmatch(string(src), -1) {
			cited++
			if k, _ := strconv.Atoi(m[1]); !slices.Contains(sections, k) {
				t.Errorf("%s cites substrait.md §%s, which %s does not have", path, m[1], substraitDoc)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited == 0 {
		t.Error("no Go file cites substrait.md §N: the walk found none, so it checked nothing")
	}
}
