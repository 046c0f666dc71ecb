package sqltest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/sqltest"
)

// TestSemiPushEquivalence: an IN / [NOT] EXISTS conjunct applied to one
// FROM item before the joins (sql/semipush.go) keeps the rows the
// same conjunct keeps on top of the joins. The oracle is the same query
// with the joins in a derived table, a single FROM item the conjunct
// cannot move into, over seeded random tables with NULLs and duplicates,
// at every configuration semi_push.slt runs at. For the conjuncts that
// move, the two plans must differ (else the test compares a plan with
// itself).
func TestSemiPushEquivalence(t *testing.T) {
	// {O}, {OC}, {CC}: o.ok, o.ck, c.ck in the FROM-list query; %d a
	// random constant.
	conds := []struct {
		cond  string
		moves bool
	}{
		{"{O} IN (SELECT ok FROM li GROUP BY ok HAVING sum(qty) > %d)", true},
		{"{O} IN (SELECT v FROM k WHERE v IS NULL OR v <> %d)", true},
		{"{OC} IN (SELECT v FROM k WHERE coalesce(v, 0) <> %d)", true},
		{"EXISTS (SELECT 1 FROM li l2 WHERE l2.ok = {O} AND l2.qty > %d)", true},
		{"NOT EXISTS (SELECT 1 FROM li l2 WHERE l2.ok = {O} AND l2.qty > %d)", true},
		{"{CC} IN (SELECT v FROM k WHERE v IS NULL OR v <> %d)", true},
		{"NOT EXISTS (SELECT 1 FROM k WHERE k.v = {CC} AND k.v <> %d)", true},
		{"{O} NOT IN (SELECT v FROM k WHERE v IS NULL OR v <> %d)", false},
	}
	pushed := strings.NewReplacer("{O}", "o.ok", "{OC}", "o.ck", "{CC}", "c.ck")
	onTop := strings.NewReplacer("{O}", "t.ok", "{OC}", "t.ock", "{CC}", "t.cck")
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 18))
		val := func(n int, nulls bool) string {
			if nulls && rng.IntN(5) == 0 {
				return "NULL"
			}
			return fmt.Sprint(rng.IntN(n))
		}
		rows := func(n int, row func(i int) string) string {
			var vs []string
			for i := range n {
				vs = append(vs, "("+row(i)+")")
			}
			return strings.Join(vs, ", ")
		}
		setup := []string{
			"CREATE TABLE cust (ck BIGINT NOT NULL, name TEXT)",
			"CREATE TABLE ord (ok BIGINT NOT NULL, ck BIGINT)",
			"CREATE TABLE li (ok BIGINT NOT NULL, qty BIGINT)",
			"CREATE TABLE k (v BIGINT)",
			// li is the largest (the probe item), the others smaller.
			"INSERT INTO cust VALUES " + rows(1+rng.IntN(5), func(i int) string { return fmt.Sprintf("%d, 'c%d'", i, i) }),
			"INSERT INTO ord VALUES " + rows(1+rng.IntN(9), func(int) string { return val(9, false) + ", " + val(5, true) }),
			"INSERT INTO li VALUES " + rows(12+rng.IntN(20), func(int) string { return val(10, false) + ", " + val(10, true) }),
			"INSERT INTO k VALUES " + rows(1+rng.IntN(5), func(int) string { return val(7, true) }),
		}
		var stmts, qa, qb []*sqltest.Record
		for _, s := range setup {
			stmts = append(stmts, &sqltest.Record{Kind: sqltest.KindStatement, Header: "statement ok", SQL: s})
		}
		var explains [][2]string
		for _, c := range conds {
			cond := fmt.Sprintf(c.cond, rng.IntN(12))
			a := "SELECT c.name, o.ok, l.qty FROM cust c, ord o, li l WHERE " + pushed.Replace(cond) + " AND c.ck = o.ck AND o.ok = l.ok"
			b := "SELECT t.name, t.ok, t.qty FROM (SELECT c.name, c.ck AS cck, o.ok, o.ck AS ock, l.qty FROM cust c, ord o, li l " +
				"WHERE c.ck = o.ck AND o.ok = l.ok) t WHERE " + onTop.Replace(cond)
			qa = append(qa, &sqltest.Record{Kind: sqltest.KindQuery, Header: "query TII rowsort", SQL: a, Types: "TII", RowSort: true})
			qb = append(qb, &sqltest.Record{Kind: sqltest.KindQuery, Header: "query TII rowsort", SQL: b, Types: "TII", RowSort: true})
			if c.moves {
				explains = append(explains, [2]string{a, b})
			}
		}
		ctx := context.Background()
		for _, cfg := range sqltest.Configs {
			if raceOn && testing.Short() && !raceConfig(cfg) {
				continue // as TestSQLLogic: make test runs the rest without the detector
			}
			t.Run(fmt.Sprintf("seed=%d/%s", seed, cfg), func(t *testing.T) {
				db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t), BatchSize: cfg.BatchSize, DisableIndexes: cfg.NoIndex, Threads: cfg.Threads})
				for _, f := range sqltest.Run(ctx, db, stmts, cfg, false) {
					t.Fatal(f)
				}
				// The oracle's answers become the expected ones.
				for _, f := range sqltest.Run(ctx, db, qb, cfg, true) {
					t.Fatal(f)
				}
				for i := range qa {
					qa[i].Expect = qb[i].Expect
				}
				for _, f := range sqltest.Run(ctx, db, qa, cfg, false) {
					t.Errorf("%v\n%s", f, f.Record.SQL)
				}
				for _, e := range explains {
					pa, pb := explain(ctx, t, db, cfg, e[0]), explain(ctx, t, db, cfg, e[1])
					if pa == pb {
						t.Errorf("the conjunct did not move: same plan as on top\n%s\n%s", e[0], pa)
					}
				}
			})
		}
	}
}

// explain is a query's EXPLAIN text.
func explain(ctx context.Context, t *testing.T, db *engine.DB, cfg sqltest.Config, q string) string {
	t.Helper()
	r := &sqltest.Record{Kind: sqltest.KindQuery, Header: "query T", SQL: "EXPLAIN " + q, Types: "T"}
	for _, f := range sqltest.Run(ctx, db, []*sqltest.Record{r}, cfg, true) {
		t.Fatal(f)
	}
	if len(r.Expect) == 0 {
		t.Fatalf("EXPLAIN %s: no plan", q)
	}
	return strings.Join(r.Expect, "\n")
}
