package sql

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/plan"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// inListSQL is SELECT count(*) FROM t WHERE id [NOT] IN (n values), the
// values made by item.
func inListSQL(n int, not string, item func(i int) string) string {
	var sb strings.Builder
	sb.WriteString("SELECT count(*) FROM t WHERE id " + not + "IN (")
	for i := range n {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(item(i))
	}
	sb.WriteString(")")
	return sb.String()
}

// planShape counts a plan's Expression messages and the elements of its
// list literals.
func planShape(pb *substraitpb.Plan) (exprs, lists, elements int) {
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *substraitpb.Expression:
			exprs++
		case *substraitpb.Expression_Literal:
			if l := x.GetList(); l != nil {
				lists++
				elements += len(l.GetValues())
				return
			}
			if ud := x.GetUserDefined(); ud != nil {
				l, err := plan.DecodePackedList(ud.GetValue())
				if err != nil {
					panic(err)
				}
				lists++
				elements += l.Len()
				if l.Null {
					elements++
				}
				return
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Kind() != protoreflect.MessageKind {
				return true
			}
			if fd.IsList() {
				for i := range v.List().Len() {
					walk(v.List().Get(i).Message())
				}
			} else if !fd.IsMap() {
				walk(v.Message())
			}
			return true
		})
	}
	walk(pb.ProtoReflect())
	return exprs, lists, elements
}

// TestLongInListIsOneLiteral: a list of 200K constants lowers to one
// packed list literal holding them, not to an expression per value
// (issue 26 item 6). Before, the plan held 200K option expressions. The other
// types take 2,000 values, to keep the test short.
func TestLongInListIsOneLiteral(t *testing.T) {
	for name, tc := range map[string]struct {
		n   int
		sql func(n int) string
	}{
		"ints": {200_000, func(n int) string { return inListSQL(n, "", func(i int) string { return strconv.Itoa(i * 7) }) }},
		"not in, null": {2000, func(n int) string {
			return inListSQL(n, "NOT ", func(i int) string { return map[bool]string{true: "NULL", false: strconv.Itoa(-i)}[i == n/2] })
		}},
		"text": {2000, func(n int) string {
			return strings.Replace(inListSQL(n, "", func(i int) string { return "'n" + strconv.Itoa(i) + "'" }), "WHERE id", "WHERE name", 1)
		}},
		"double": {2000, func(n int) string {
			return strings.Replace(inListSQL(n, "", func(i int) string { return strconv.Itoa(i) + ".5" }), "WHERE id", "WHERE score", 1)
		}},
	} {
		t.Run(name, func(t *testing.T) {
			q, ok := parseOne(t, tc.sql(tc.n)).(*Query)
			require.True(t, ok)
			exprs, lists, elements := planShape(q.Plan)
			require.Equal(t, 1, lists, "list literals")
			require.Equal(t, tc.n, elements, "list elements")
			require.Less(t, exprs, 50, "expression messages")
			// Expanded for an outside reader: the same values as one
			// standard list literal, which substrait-go reads without
			// knowing stablerow's packed list type.
			std := proto.Clone(q.Plan).(*substraitpb.Plan)
			require.NoError(t, plan.ExpandPackedLists(std))
			_, lists, elements = planShape(std)
			require.Equal(t, 1, lists, "expanded list literals")
			require.Equal(t, tc.n, elements, "expanded list elements")
			for _, u := range std.GetExtensionUrns() {
				require.NotEqual(t, plan.PackedListURN, u.GetUrn())
			}
			require.Empty(t, std.GetExtensions()[0].GetExtensionType())
			reread(t, std)
		})
	}
}

// TestShortInListKeepsOptions: below minConstList the parser's path is
// kept, an option per value (plans and EXPLAIN of hand-written lists
// unchanged), and so are lists with anything but plain constants.
func TestShortInListKeepsOptions(t *testing.T) {
	for _, sql := range []string{
		inListSQL(minConstList-1, "", strconv.Itoa),
		inListSQL(100, "", func(i int) string { return "CAST(" + strconv.Itoa(i) + " AS BIGINT)" }),
		inListSQL(100, "", func(i int) string { return strconv.Itoa(i) + " + 1" }),
		inListSQL(100, "", func(i int) string { return "E'" + strconv.Itoa(i) + "'" }),
		inListSQL(100, "", func(i int) string { return "+" + strconv.Itoa(i) }),
	} {
		q := parseOne(t, sql).(*Query)
		_, lists, _ := planShape(q.Plan)
		require.Zero(t, lists, sql[:60])
	}
}

// TestLongInListAllocsPerValue: the front end's allocations do not grow
// with the list, measured as the difference between 10K and 20K values
// so the statement's fixed cost drops out: the constants are scanned
// into a slice and written into one packed list payload (the slices grow
// geometrically, a few allocations per doubling). Before the list was
// cut out of the parser's text it was 25 per value, then 4 (the scanner's
// tokens, substrait-go's literal, its protobuf message) before the packed
// list.
func TestLongInListAllocsPerValue(t *testing.T) {
	for name, item := range map[string]func(int) string{
		"bigint": func(i int) string { return strconv.Itoa(i * 7) },
		"text":   func(i int) string { return "'n" + strconv.Itoa(i) + "'" },
	} {
		t.Run(name, func(t *testing.T) {
			allocs := func(n int) float64 {
				sql := inListSQL(n, "", item)
				if name == "text" {
					sql = strings.Replace(sql, "WHERE id", "WHERE name", 1)
				}
				return testing.AllocsPerRun(2, func() {
					if _, err := Parse(sql, testCatalog); err != nil {
						t.Fatal(err)
					}
				})
			}
			a, b := allocs(10_000), allocs(20_000)
			per := (b - a) / 10_000
			t.Logf("%.3f allocations per value", per)
			require.Less(t, per, 0.01)
		})
	}
}

// TestLongInListErrors: a constant the column's type refuses is
// PostgreSQL's error, naming the constant's own line and column, as on
// the parser's path.
func TestLongInListErrors(t *testing.T) {
	items := func(bad string) func(int) string {
		return func(i int) string {
			if i == 70 {
				return bad
			}
			return "'" + strconv.Itoa(i) + "'"
		}
	}
	for _, tc := range []struct{ list, short, want string }{
		{inListSQL(100, "", items("'x'")), "SELECT count(*) FROM t WHERE id IN ('0', 'x')", `invalid input syntax for type bigint: "x"`},
		{inListSQL(100, "", items("'1.5'")), "SELECT count(*) FROM t WHERE id IN ('0', '1.5')", `invalid input syntax for type bigint: "1.5"`},
	} {
		sql := strings.ReplaceAll(tc.list, ", ", ",\n")
		_, err := Parse(sql, testCatalog)
		require.ErrorContains(t, err, tc.want)
		require.ErrorContains(t, err, "line 71, column 1")
		_, short := Parse(tc.short, testCatalog)
		require.Error(t, short)
		for _, kind := range []error{ErrInvalid, ErrType, ErrSyntax, ErrUnsupported} {
			require.Equal(t, errors.Is(short, kind), errors.Is(err, kind), "%v vs %v", err, short)
		}
	}
	// Positions after a cut list still name the caller's text.
	sql := strings.ReplaceAll(inListSQL(100, "", strconv.Itoa), ", ", ",\n") + "\n  AND nosuch = 1"
	_, err := Parse(sql, testCatalog)
	require.ErrorContains(t, err, "line 101, column 7")
	_, err = Parse(sql+" AND (", testCatalog)
	require.ErrorIs(t, err, ErrSyntax)
	require.ErrorContains(t, err, "line 101")
	// Integers against text: no common type, as PostgreSQL says.
	_, err = Parse(strings.Replace(inListSQL(100, "", strconv.Itoa), "WHERE id", "WHERE name", 1), testCatalog)
	require.ErrorIs(t, err, ErrType)
}

// TestHiddenListNumberIsNotAParameter: a $k the caller writes can never
// be read as a long list's placeholder.
func TestHiddenListNumberIsNotAParameter(t *testing.T) {
	sql := inListSQL(100, "", strconv.Itoa) + " AND id IN ($" + strconv.Itoa(hiddenListBase) + ")"
	_, err := Parse(sql, testCatalog)
	require.ErrorIs(t, err, ErrParam)
}
