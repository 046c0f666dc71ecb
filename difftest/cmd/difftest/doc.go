// Command difftest runs the differential test of stablerow against a
// PostgreSQL server (see run.sh, which starts one and calls this).
//
//	difftest -dsn DSN [-seed N] [-cases K | -duration 2h] [-case I] [-regressions DIR]
//
// It first replays the regression files (expected = PostgreSQL's answer),
// then generates cases. It exits 1 on any divergence or failing
// regression, 2 on a harness error.
package main
