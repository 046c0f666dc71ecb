package optimize_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/stablerow/stablerow/plan/ingest"
	"github.com/stablerow/stablerow/plan/optimize"
	"github.com/stablerow/stablerow/sql"
)

// sqlCatalog is t (id, name, score) and u (id, flag), with the system
// columns every table has.
type sqlCatalog struct{}

func (sqlCatalog) TableSchema(name string) (*arrow.Schema, error) {
	var fs []arrow.Field
	switch strings.ToLower(name) {
	case "t":
		fs = []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
			{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}
	case "u":
		fs = []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64},
			{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}}
	default:
		return nil, fmt.Errorf("catalog: %q: %w", name, sql.ErrUnknownTable)
	}
	fs = append(fs, arrow.Field{Name: "_rowid", Type: arrow.PrimitiveTypes.Uint64}, arrow.Field{Name: "_rowaddr", Type: arrow.PrimitiveTypes.Uint64})
	return arrow.NewSchema(fs, nil), nil
}

// reads counts the scans of each table in m.
func reads(m protoreflect.Message, out map[string]int) {
	if r, ok := m.Interface().(*substraitpb.ReadRel); ok {
		if nt := r.GetNamedTable(); nt != nil {
			out[nt.GetNames()[0]]++
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind || fd.IsMap():
		case fd.IsList():
			for i := range v.List().Len() {
				reads(v.List().Get(i).Message(), out)
			}
		default:
			reads(v.Message(), out)
		}
		return true
	})
}

// TestRestrictionOfSQL: the SQL front end writes a correlated scalar
// aggregate as a subquery expression, and Decorrelate restricts the
// grouped input to the keys the outer rows can have: it reads the outer
// keys' table a third time (the restriction) when the outer WHERE has a
// conjunct on that table alone, a parameter in it included, and not
// otherwise (no such conjunct; keys from two tables). (Moved from the
// front end's own restriction, sql/restrict.go, when it was deleted;
// the answers are in testdata/sql/subquery_restrict.slt.)
func TestRestrictionOfSQL(t *testing.T) {
	for _, c := range []struct {
		sql   string
		reads map[string]int
	}{
		{"SELECT t.id FROM t WHERE t.name = $1 AND t.score < (SELECT avg(t2.score) FROM t AS t2 WHERE t2.id = t.id)",
			map[string]int{"t": 3}},
		// A conjunct with a parameter on the other table only.
		{"SELECT t.id FROM t, u WHERE u.id = t.id AND u.flag = $1 AND t.score < (SELECT max(t2.score) FROM t AS t2 WHERE t2.id = t.id)",
			map[string]int{"t": 2, "u": 1}},
		// No conjunct on t alone: no restriction.
		{"SELECT t.id FROM t WHERE t.score < (SELECT avg(t2.score) FROM t AS t2 WHERE t2.id = t.id)",
			map[string]int{"t": 2}},
		// Keys from two tables: none either.
		{"SELECT t.id FROM t, u WHERE u.flag AND t.name = 'x' AND t.score < (SELECT max(t2.score) FROM t AS t2 WHERE t2.id = t.id AND t2.id = u.id)",
			map[string]int{"t": 2, "u": 1}},
		// The outer key is u.id, and u has a conjunct of its own: u is
		// read again for the restriction.
		{"SELECT t.id FROM t, u WHERE u.id = t.id AND u.flag AND t.score < (SELECT max(t2.score) FROM t AS t2 WHERE t2.id = u.id)",
			map[string]int{"t": 2, "u": 2}},
	} {
		stmts, err := sql.Parse(c.sql, sqlCatalog{})
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		p := stmts[0].(*sql.Query).Plan
		ck, err := ingest.Check(p)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if err := optimize.Decorrelate(p, ck.Widths, nil); err != nil {
			t.Fatalf("%s: Decorrelate: %v", c.sql, err)
		}
		got := map[string]int{}
		reads(p.ProtoReflect(), got)
		if fmt.Sprint(got) != fmt.Sprint(c.reads) {
			t.Fatalf("%s: reads %v, want %v\n%s", c.sql, got, c.reads, protojson.Format(p))
		}
	}
}

// TestRestrictionJoinsFromList: when the subquery's input is a FROM list
// (a filter over cross products), the restriction's distinct keys join it
// as one more item of the cross product, their equality beside its
// conditions, so that the join order places them among the items (TPC-H
// Q2: the part keys meet partsupp before the supplier join; joined above
// the whole list, they met the 800K-row join of partsupp and supplier,
// 3.1x slower, paired). A subquery over one table keeps the join.
func TestRestrictionJoinsFromList(t *testing.T) {
	for _, c := range []struct {
		sql      string
		fromList bool
	}{
		{"SELECT t.id FROM t WHERE t.name = 'x' AND t.score = (SELECT min(t2.score) FROM t AS t2, u WHERE t2.id = u.id AND u.flag AND t2.id = t.id)", true},
		{"SELECT t.id FROM t WHERE t.name = 'x' AND t.score < (SELECT avg(t2.score) FROM t AS t2 WHERE t2.id = t.id)", false},
	} {
		stmts, err := sql.Parse(c.sql, sqlCatalog{})
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		p := stmts[0].(*sql.Query).Plan
		ck, err := ingest.Check(p)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if err := optimize.Decorrelate(p, ck.Widths, nil); err != nil {
			t.Fatalf("%s: Decorrelate: %v", c.sql, err)
		}
		if got := keysCrossed(p.ProtoReflect()); got != c.fromList {
			t.Fatalf("%s: distinct keys crossed with the FROM list: %v, want %v\n%s", c.sql, got, c.fromList, protojson.Format(p))
		}
	}
}

// keysCrossed: some cross product in m has a measure-less aggregate (the
// restriction's distinct keys) as an input.
func keysCrossed(m protoreflect.Message) bool {
	if x, ok := m.Interface().(*substraitpb.CrossRel); ok {
		for _, in := range []*substraitpb.Rel{x.GetLeft(), x.GetRight()} {
			if a := in.GetAggregate(); a != nil && len(a.GetMeasures()) == 0 {
				return true
			}
		}
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind || fd.IsMap():
		case fd.IsList():
			for i := range v.List().Len() {
				found = found || keysCrossed(v.List().Get(i).Message())
			}
		default:
			found = found || keysCrossed(v.Message())
		}
		return !found
	})
	return found
}
