package sql

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// lateralJoins lists the JoinRels of p marked lateral.
func lateralJoins(p *substraitpb.Plan) []*substraitpb.JoinRel {
	var out []*substraitpb.JoinRel
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if j, ok := m.Interface().(*substraitpb.JoinRel); ok && substraitfn.IsLateralJoin(j.GetAdvancedExtension()) {
			out = append(out, j)
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return true })
	}
	walk(proto.Clone(p).ProtoReflect())
	return out
}

// TestLateralIsALateralJoin: the front end writes a LATERAL item as one
// JoinRel marked lateral (inner for a FROM list, CROSS JOIN LATERAL and
// JOIN LATERAL; left for LEFT JOIN LATERAL) whose right input reaches
// the left's row through outer references steps_out 1, a name of the
// query around it steps_out 2, and builds no other join for it: the
// optimizer unnests it (optimize.Decorrelate).
func TestLateralIsALateralJoin(t *testing.T) {
	for _, tc := range []struct {
		sql    string
		jt     substraitpb.JoinRel_JoinType
		outer  map[uint32]int
		others int // joins that are not lateral
	}{
		{"SELECT * FROM t, LATERAL (SELECT u.flag FROM u WHERE u.id = t.id) AS x", substraitpb.JoinRel_JOIN_TYPE_INNER, map[uint32]int{1: 1}, 0},
		{"SELECT * FROM t CROSS JOIN LATERAL (SELECT count(*) AS c FROM u WHERE u.id > t.id) AS x", substraitpb.JoinRel_JOIN_TYPE_INNER, map[uint32]int{1: 1}, 0},
		{"SELECT * FROM t LEFT JOIN LATERAL (SELECT u.id FROM u WHERE u.id = t.id ORDER BY u.id LIMIT 2) AS x ON TRUE", substraitpb.JoinRel_JOIN_TYPE_LEFT, map[uint32]int{1: 1}, 0},
		{"SELECT * FROM t JOIN LATERAL (SELECT t.score + 1 AS s) AS x ON x.s > 0", substraitpb.JoinRel_JOIN_TYPE_INNER, map[uint32]int{1: 1}, 0},
		// A subquery inside the LATERAL item naming t: two levels out.
		{"SELECT * FROM t, LATERAL (SELECT u.id FROM u WHERE EXISTS (SELECT 1 FROM u AS v WHERE v.id = u.id AND v.id = t.id)) AS x", substraitpb.JoinRel_JOIN_TYPE_INNER, map[uint32]int{1: 1, 2: 1}, 0},
	} {
		q, ok := parseOne(t, tc.sql).(*Query)
		require.True(t, ok, tc.sql)
		ls := lateralJoins(q.Plan)
		require.Len(t, ls, 1, tc.sql)
		require.Equal(t, tc.jt, ls[0].GetType(), tc.sql)
		c := census(q.Plan)
		require.Equal(t, 1+tc.others, c.joins, "%s: the front end writes no other join", tc.sql)
		require.Equal(t, tc.outer, c.outerRef, tc.sql)
	}
}

// TestTwoLevelOuterReference: a subquery's name of the query two levels
// out is an outer reference steps_out 2 (it was refused as errCorrelated),
// in the WHERE, the SELECT list and the HAVING.
func TestTwoLevelOuterReference(t *testing.T) {
	for _, sql := range []string{
		"SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE EXISTS (SELECT 1 FROM u AS v WHERE v.id = t.id))",
		"SELECT id, (SELECT (SELECT max(v.id) FROM u AS v WHERE v.id < t.id) FROM u WHERE u.id = 1) FROM t",
		"SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u GROUP BY u.flag HAVING count(*) > (SELECT count(*) FROM u AS v WHERE v.id = t.id))",
	} {
		q, ok := parseOne(t, sql).(*Query)
		require.True(t, ok, sql)
		require.Equal(t, 1, census(q.Plan).outerRef[2], sql)
	}
}
