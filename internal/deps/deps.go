//go:build tools

package deps

import (
	_ "github.com/RoaringBitmap/roaring/v2"
	_ "github.com/apache/arrow-go/v18/arrow"
	_ "github.com/apache/arrow-go/v18/arrow/compute"
	_ "github.com/apache/arrow-go/v18/arrow/compute/exprs"
	_ "github.com/apache/arrow-go/v18/arrow/ipc"
	_ "github.com/pganalyze/pg_query_go/v6"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/stretchr/testify/require"
	_ "github.com/substrait-io/substrait-go/v8/plan"
	_ "golang.org/x/sync/errgroup"
)
