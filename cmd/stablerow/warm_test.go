package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	_ "google.golang.org/protobuf/types/known/structpb" // the UNNEST parameter's Any
)

var updateWarmPlan = flag.Bool("update-warm-plan", false, "rewrite internal/warm/testdata/plan.{json,pb} from the current lowering of the seed take")

// The warm-up plan package warm embeds, and its JSON form.
const (
	warmPlanPB   = "internal/warm/testdata/plan.pb"
	warmPlanJSON = "internal/warm/testdata/plan.json"
)

// seedTake is the README's seed query, the statement cold start is measured on.
const seedTake = `SELECT v.ord, t._rowaddr, t.k FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`

// TestWarmPlanIsTheSeedTake: the plan package warm decodes is what SQL
// lowers the seed take to today, so the warm-up readies the messages the
// first statement uses (a stale one would only cost speed: this keeps it
// current). Regenerate: go test -run TestWarmPlan ./cmd/stablerow -update-warm-plan
func TestWarmPlanIsTheSeedTake(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT NOT NULL, s TEXT); CREATE INDEX rid ON t USING btree (_rowid)", "-create")
	r := cli(t, "", "substrait", "-d", dir, "-emit", seedTake)
	if r.code != 0 {
		t.Fatalf("substrait -emit: exit %d: %s", r.code, r.stderr)
	}
	var fresh substraitpb.Plan
	if err := protojson.Unmarshal([]byte(r.stdout), &fresh); err != nil {
		t.Fatal(err)
	}
	if *updateWarmPlan {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(&fresh)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(warmPlanJSON, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(warmPlanPB, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("rewrote internal/warm/testdata/plan.{json,pb}: rebuild to embed them")
		return
	}
	warmPlan, err := os.ReadFile(warmPlanPB) // the file package warm embeds
	if err != nil {
		t.Fatal(err)
	}
	var embedded substraitpb.Plan
	if err := proto.Unmarshal(warmPlan, &embedded); err != nil {
		t.Fatalf("the embedded warm-up plan does not decode: %v", err)
	}
	fresh.Version, embedded.Version = nil, nil // the producer names the platform
	if !proto.Equal(&fresh, &embedded) {
		t.Fatalf("internal/warm/testdata/plan.pb is not the seed take's plan any more; regenerate: go test -run TestWarmPlan ./cmd/stablerow -update-warm-plan")
	}
}
