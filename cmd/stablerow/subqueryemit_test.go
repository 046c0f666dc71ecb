package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// emitted is what `substrait -emit` writes for q over the database dir,
// counted: the subquery expressions sub matches, the outer references
// (steps_out 1) inside them, and the joins; and the rows the emitted
// plan answers when run as a Substrait plan, beside the SQL's own.
type emitted struct {
	subs, outer, joins int
	got, want          [][]string
	json               string
}

func emit(t *testing.T, dir, q string, sub func(proto.Message) bool) emitted {
	t.Helper()
	r := cli(t, "", "substrait", "-d", dir, "-emit", q)
	if r.code != 0 {
		t.Fatalf("substrait -emit: exit %d: %s", r.code, r.stderr)
	}
	var p substraitpb.Plan
	if err := protojson.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatal(err)
	}
	e := emitted{json: r.stdout}
	var walk func(m protoreflect.Message, in bool)
	walk = func(m protoreflect.Message, in bool) {
		switch x := m.Interface().(type) {
		case *substraitpb.JoinRel:
			e.joins++
		case *substraitpb.Expression_FieldReference:
			if o := x.GetOuterReference(); o != nil && in && o.GetStepsOut() == 1 {
				e.outer++
			}
		}
		if sub(m.Interface()) {
			e.subs++
			in = true
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Kind() != protoreflect.MessageKind:
			case fd.IsList():
				for i := range v.List().Len() {
					walk(v.List().Get(i).Message(), in)
				}
			case !fd.IsMap():
				walk(v.Message(), in)
			}
			return true
		})
	}
	walk(p.ProtoReflect(), false)
	f := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(f, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	run := cli(t, "", "substrait", "-d", dir, "-f", f)
	if run.code != 0 {
		t.Fatalf("substrait -f: exit %d: %s", run.code, run.stderr)
	}
	e.got, e.want = tableRows(run.stdout), tableRows(mustSQL(t, dir, q))
	return e
}

// TestCLIEmitCorrelatedExists: `substrait -emit` of a correlated EXISTS
// shows the subquery expression the SQL front end writes (a SetPredicate
// EXISTS whose filter reaches the outer row through an outer reference,
// steps_out 1), not a join: decorrelation is the optimizer's, once, for
// every producer (issue 27 item 1). The emitted plan, run as a Substrait
// plan, answers as the SQL does.
func TestCLIEmitCorrelatedExists(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE a (k BIGINT NOT NULL, s TEXT); CREATE TABLE b (k BIGINT NOT NULL, v BIGINT);"+
		"INSERT INTO a VALUES (1, 'x'), (2, 'y'), (3, 'z'); INSERT INTO b VALUES (1, 10), (3, 5), (3, 30)", "-create")
	const q = "SELECT s FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.v > 7) ORDER BY s"
	e := emit(t, dir, q, func(m proto.Message) bool {
		x, ok := m.(*substraitpb.Expression_Subquery_SetPredicate)
		return ok && x.GetPredicateOp() == substraitpb.Expression_Subquery_SetPredicate_PREDICATE_OP_EXISTS
	})
	if e.subs != 1 || e.outer != 1 || e.joins != 0 {
		t.Fatalf("emitted plan has %d EXISTS set predicates, %d outer references in them, %d joins; want 1, 1, 0:\n%s", e.subs, e.outer, e.joins, e.json)
	}
	if want := [][]string{{"x", "z"}}; !slices.EqualFunc(e.want, want, slices.Equal) || !slices.EqualFunc(e.got, want, slices.Equal) {
		t.Fatalf("the emitted plan answers %v, the SQL %v (want x and z)", e.got, e.want)
	}
}

// TestCLIEmitCorrelatedScalar: the same for correlated scalar subqueries
// (a plain one in the SELECT list, one over an aggregate in the WHERE):
// Substrait ScalarSubquery expressions, each with an outer reference, and
// no join (the front end's own decorrelation is gone; issue 27 item 1).
func TestCLIEmitCorrelatedScalar(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE a (k BIGINT NOT NULL, s TEXT); CREATE TABLE b (k BIGINT NOT NULL, v BIGINT);"+
		"INSERT INTO a VALUES (1, 'x'), (2, 'y'), (3, 'z'), (4, 'w'); INSERT INTO b VALUES (1, 10), (3, 5), (3, 30), (4, 1)", "-create")
	// k=1: sum 10 > 1, big 10; k=2: no b row, sum NULL; k=3: sum 35 > 3,
	// big 30 (5 is not > 7); k=4: sum 1 < 4.
	const q = "SELECT s, (SELECT b.v FROM b WHERE b.k = a.k AND b.v > 7) AS big FROM a " +
		"WHERE a.k < (SELECT sum(b.v) FROM b WHERE b.k = a.k) ORDER BY s"
	e := emit(t, dir, q, func(m proto.Message) bool {
		_, ok := m.(*substraitpb.Expression_Subquery_Scalar)
		return ok
	})
	if e.subs != 2 || e.outer != 2 || e.joins != 0 {
		t.Fatalf("emitted plan has %d scalar subqueries, %d outer references in them, %d joins; want 2, 2, 0:\n%s", e.subs, e.outer, e.joins, e.json)
	}
	if want := [][]string{{"x | 10", "z | 30"}}; !slices.EqualFunc(e.want, want, slices.Equal) || !slices.EqualFunc(e.got, want, slices.Equal) {
		t.Fatalf("the emitted plan answers %v, the SQL %v (want %v)", e.got, e.want, want)
	}
}
