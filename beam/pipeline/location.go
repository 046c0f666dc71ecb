package pipeline

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/stablerow/stablerow/engine"
	_ "github.com/stablerow/stablerow/engine/s3db" // engine opens s3:// (engine/remote.go)
	"github.com/stablerow/stablerow/table/store"
	"github.com/stablerow/stablerow/table/store/s3store"
)

// Locations are what engine.Open takes: a local directory or
// s3://bucket/prefix. Workers open them again from the strings the driver
// serialized into the pipeline, so on a distributed runner they must name
// storage every worker reaches (S3; a local path only with one machine).

// TableLocation is where table name of the database at db lives: the
// engine's layout, <db>/<lower-case name>.
func TableLocation(db, name string) string {
	if engine.IsRemote(db) {
		return strings.TrimSuffix(db, "/") + "/" + strings.ToLower(name)
	}
	return filepath.Join(db, strings.ToLower(name))
}

// openTableStore opens the store of an existing table.
func openTableStore(ctx context.Context, loc string) (store.Store, error) {
	return engine.OpenStore(ctx, loc, engine.Options{})
}

// openDirStore opens (creating a local directory) the store at a
// directory or prefix, for output.
func openDirStore(ctx context.Context, loc string) (store.Store, error) {
	if engine.IsRemote(loc) {
		return s3store.New(ctx, loc, s3store.Options{})
	}
	u, err := store.ParseURI(loc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return store.NewLocal(u.Path)
}

// openFile splits a file location into the store of its directory and
// its name in it.
func openFile(ctx context.Context, loc string) (store.Store, string, error) {
	if engine.IsRemote(loc) {
		i := strings.LastIndex(loc, "/")
		if i < len("s3://") || i == len(loc)-1 {
			return nil, "", fmt.Errorf("%w: %q names no object", ErrConfig, loc)
		}
		st, err := s3store.New(ctx, loc[:i], s3store.Options{})
		return st, loc[i+1:], err
	}
	u, err := store.ParseURI(loc)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrConfig, err)
	}
	dir, name := filepath.Split(u.Path)
	if dir == "" {
		dir = "."
	}
	st, err := store.NewLocal(dir)
	return st, path.Clean(name), err
}
