package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

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
	r := cli(t, "", "substrait", "-d", dir, "-emit", q)
	if r.code != 0 {
		t.Fatalf("substrait -emit: exit %d: %s", r.code, r.stderr)
	}
	var p substraitpb.Plan
	if err := protojson.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatal(err)
	}
	var exists, outer, joins int
	var walk func(m protoreflect.Message, inExists bool)
	walk = func(m protoreflect.Message, inExists bool) {
		switch x := m.Interface().(type) {
		case *substraitpb.JoinRel:
			joins++
		case *substraitpb.Expression_Subquery_SetPredicate:
			if x.GetPredicateOp() == substraitpb.Expression_Subquery_SetPredicate_PREDICATE_OP_EXISTS {
				exists++
				inExists = true
			}
		case *substraitpb.Expression_FieldReference:
			if o := x.GetOuterReference(); o != nil && inExists && o.GetStepsOut() == 1 {
				outer++
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Kind() != protoreflect.MessageKind:
			case fd.IsList():
				for i := range v.List().Len() {
					walk(v.List().Get(i).Message(), inExists)
				}
			case !fd.IsMap():
				walk(v.Message(), inExists)
			}
			return true
		})
	}
	walk(p.ProtoReflect(), false)
	if exists != 1 || outer != 1 || joins != 0 {
		t.Fatalf("emitted plan has %d EXISTS set predicates, %d outer references in them, %d joins; want 1, 1, 0:\n%s", exists, outer, joins, r.stdout)
	}
	f := filepath.Join(t.TempDir(), "exists.json")
	if err := os.WriteFile(f, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	run := cli(t, "", "substrait", "-d", dir, "-f", f)
	if run.code != 0 {
		t.Fatalf("substrait -f: exit %d: %s", run.code, run.stderr)
	}
	got, want := tableRows(run.stdout), tableRows(mustSQL(t, dir, q))
	if len(want) != 1 || len(want[0]) != 2 || want[0][0] != "x" || want[0][1] != "z" || len(got) != 1 || len(got[0]) != 2 || got[0][0] != want[0][0] || got[0][1] != want[0][1] {
		t.Fatalf("the emitted plan answers %v, the SQL %v (want x and z)", got, want)
	}
}
