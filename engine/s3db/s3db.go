package s3db

import (
	"context"
	"errors"
	"fmt"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store"
	"github.com/stablerow/stablerow/table/store/s3store"
)

func init() {
	engine.RegisterRemote("s3", engine.RemoteScheme{Open: open, Sub: sub})
}

// errOptions: engine.Options.S3 holds something other than an
// s3store.Options.
var errOptions = errkind.New(errkind.InvalidArgument, "s3db: engine.Options.S3 is not an s3store.Options")

func open(ctx context.Context, loc string, opt engine.Options) (engine.RemoteRoot, error) {
	var so s3store.Options
	switch o := opt.S3.(type) {
	case nil:
	case s3store.Options:
		so = o
	case *s3store.Options:
		if o != nil {
			so = *o
		}
	default:
		return nil, fmt.Errorf("%w: %T", errOptions, opt.S3)
	}
	if so.Cache == nil {
		so.Cache = s3store.NewCache(engine.DefaultS3CacheBytes)
	}
	st, err := s3store.New(ctx, loc, so)
	if errors.Is(err, s3store.ErrNoBucket) {
		return nil, fmt.Errorf("%w: %s: %w", engine.ErrNoDatabase, loc, err)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: open %s: %w", loc, err)
	}
	return st, nil
}

// sub is s3store.Store.Sub for a store open returned (the engine hands back
// only stores of this scheme).
func sub(root store.Store, p string) (store.Store, error) {
	st, ok := root.(*s3store.Store)
	if !ok {
		return nil, fmt.Errorf("%w: s3db: sub-prefix of a %T", store.ErrInvalidArgument, root)
	}
	return st.Sub(p)
}
