package main

import (
	_ "embed"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// warmPlan is the Substrait plan SQL lowers the seed take to (binary
// protobuf of testdata/warm_plan.json, which is `stablerow substrait -emit`
// of the README's seed query; regenerate both if the lowering changes
// much: a stale plan costs speed, never correctness).
//
//go:embed testdata/warm_plan.pb
var warmPlan []byte

// warmPlanTypes readies, on another goroutine, the protobuf runtime's
// per-message state (descriptors, reflection and codec tables) of the
// Substrait messages a take plan is made of. A fresh process builds that
// state on first use: ~6.5M instructions inside plan.Build on the first
// statement (issue 15 item 4). Here it overlaps with parsing the SQL, which
// comes first and touches only pg_query's messages; the work is done once
// either way (each message's state is built under its own once), so a
// statement that needs other messages or none only loses the overlap.
func warmPlanTypes() {
	go func() {
		var p substraitpb.Plan
		_ = proto.Unmarshal(warmPlan, &p) // the error is the one statement's to report, not the warm-up's
	}()
}
