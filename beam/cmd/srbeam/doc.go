// Command srbeam runs stablerow's distributed maintenance jobs as Apache
// Beam pipelines (package pipeline):
//
//	srbeam compact        -db LOC -table T [-target-rows N] [-workers W] [beam flags]
//	srbeam recluster      -db LOC -table T -index I [-tasks N] [-workers W] [beam flags]
//	srbeam optimize-index -db LOC -table T -index I [-tasks N] [beam flags]
//	srbeam create-index   -db LOC -table T -index I -column C [-tasks N] [beam flags]
//	srbeam take    -db LOC -table T -ids FILE.parquet -out DIR [-columns a,b] [-verify] [beam flags]
//
// LOC, FILE and DIR are local paths or s3:// locations. The runner is
// chosen by Beam's own flags (--runner=prism, the default, runs in this
// process; --runner=universal --endpoint=HOST:PORT submits to a Flink,
// Spark or other portable job server; --runner=dataflow to Google Cloud
// Dataflow; see the README's "Running on Beam").
package main
