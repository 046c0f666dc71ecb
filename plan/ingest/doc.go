// Package ingest is the Substrait ingest: everything done to a plan's
// proto before any planning, for plans from the SQL front end and from
// outside producers alike.
//
//   - decode (decode.go): DecodePlan reads protobuf JSON or binary
//     protobuf, EncodeJSON writes JSON;
//   - migration (migrate.go): extensions declared through the URI fields
//     Substrait removed become URNs (URNOfURI);
//   - producer normalization (normalize.go, funcnames.go): what a
//     producer writes that substrait-go refuses or panics on, in the shape
//     substrait-go reads (function spellings, a missing RelCommon, a
//     fetch without its offset, a read's projection mask, a read's column
//     types from the catalog through Schemas, DataFusion's; DuckDB's
//     projects that replace their input, replacingProjects in
//     validate.go; DataFusion's older field references without a root
//     (fieldroot.go) and calls without an output_type, typed from their
//     declared signatures (outputtype.go); a ConsistentPartitionWindowRel as the projection of
//     window functions it means, windowrel.go, since substrait-go has no
//     WindowRel);
//   - validation (validate.go, validate_expr.go, subquery_validate.go,
//     window_validate.go, typecheck.go, depth.go): every field reference, emit, function
//     anchor, literal and type checked over the proto, so substrait-go
//     never indexes out of range; each relation's width recorded.
//
// plan.Build calls Validate (depth, normalization, validation), has the
// optimizer's first pass (optimize.Decorrelate) turn subquery expressions
// into joins given Check's facts (each relation's width), and calls Read (substrait-go's relations) before the logical
// optimizer (plan/optimize) and the physical build.
//
// Errors: a malformed plan is ErrInvalidPlan, a valid construct the engine
// lacks ErrUnsupported naming it, each with the path of the relation in
// the plan ("plan: invalid plan: root.input.filter: condition: field 7
// out of range (input has 3 columns)"). The package owns these sentinels
// and plan re-exports them, so errors.Is(err, plan.ErrInvalidPlan)
// matches whichever phase refused the plan. Nothing here panics on a bad
// plan; a panic of substrait-go's is recovered (ErrDecoderPanic).
package ingest
