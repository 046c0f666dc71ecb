package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/table/store"
)

// A database is opened by location (Open): a local directory (a plain path
// or file:///path), or an object-store prefix s3://bucket/prefix. The
// location string is parsed once, by store.ParseURI, and a remote one never
// reaches the file system: "s3://b/db" is not the directory "s3:/b/db",
// and a malformed "s3:/b" is an error, not a path.
//
// On S3 the layout is the local one with prefixes for directories:
//
//	s3://bucket/db/.stablerow-database   the mark Create leaves (an empty database exists)
//	s3://bucket/db/<table>/_versions/... one table per sub-prefix, as <dir>/<table>/
//
// A prefix is a database when Create made it or any object lies under it
// (tables written by another process, or by the table API directly); the
// bucket itself must exist (Create does not make buckets). AWS
// configuration comes from the standard chain (see package s3store).
//
// The S3 store reaches engine through a registration (remote.go): package
// engine/s3db registers the "s3" scheme when it is imported, so a program
// that opens only local databases (the stablerow CLI's query path) links
// none of the AWS SDK and runs none of its package initialization.

// dbMarker is the object Create writes under an S3 database prefix: S3 has
// no empty directories, so without it a database with no table yet would
// not exist for the next Open. It is an object, not a sub-prefix, so it is
// never taken for a table.
const dbMarker = ".stablerow-database"

// DefaultS3CacheBytes bounds the shared block cache of an S3 database when
// Options.S3's Cache is nil: data file tails and batches, rowmap blocks.
const DefaultS3CacheBytes = 256 << 20

// remoteDB is the object-store root of a database.
type remoteDB struct {
	root   RemoteRoot // at the database prefix
	scheme RemoteScheme
}

// IsRemote reports whether loc names an object-store location (s3://...,
// or any other URI scheme but file:), which Open never treats as a path.
func IsRemote(loc string) bool { return store.IsRemoteURI(loc) }

// OpenStore opens the store at loc, a table's location (local directory or
// s3://bucket/prefix), for tools that work on one table (inspect). A local
// directory must exist; nothing is created.
func OpenStore(ctx context.Context, loc string, opt Options) (store.Store, error) {
	u, err := store.ParseURI(loc)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if u.Scheme == "s3" {
		root, _, err := openRemoteRoot(ctx, u.Scheme, loc, opt)
		if err != nil {
			return nil, err
		}
		return root, nil
	}
	if err := checkDir(u.Path); err != nil {
		return nil, err
	}
	return store.NewLocal(u.Path)
}

// openRemote opens the database at an object-store location.
func openRemote(ctx context.Context, loc string, opt Options) (*DB, error) {
	u, err := store.ParseURI(loc)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if u.Scheme != "s3" {
		return nil, fmt.Errorf("engine: open %s: %w", loc, store.ErrInvalidArgument)
	}
	root, scheme, err := openRemoteRoot(ctx, u.Scheme, loc, opt)
	if err != nil {
		return nil, err
	}
	if opt.Create {
		if err := root.PutIfAbsent(ctx, dbMarker, []byte("a stablerow database\n")); err != nil && !errors.Is(err, store.ErrExists) {
			return nil, fmt.Errorf("engine: create %s: %w", loc, err)
		}
	} else if u.Prefix != "" {
		// The bucket's root always exists; a prefix exists when something
		// lies under it.
		empty, err := root.Empty(ctx)
		if err != nil {
			return nil, fmt.Errorf("engine: open %s: %w", loc, err)
		}
		if empty {
			return nil, fmt.Errorf("%w: nothing under %s", ErrNoDatabase, loc)
		}
	}
	if opt.Table.Txns == nil {
		opt.Table.Txns = root // records at <prefix>/.txn/, beside the tables
	}
	db := newDB(opt)
	db.remote = &remoteDB{root: root, scheme: scheme}
	names, err := root.ListDirs(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("engine: open %s: %w", loc, err)
	}
	for _, name := range names {
		if !tableName.MatchString(name) {
			continue
		}
		st, err := scheme.Sub(root, name)
		if err != nil {
			return nil, err
		}
		// As for a local directory: a prefix whose manifests cannot be
		// listed is kept (its use reports the error).
		if ok, err := committed(ctx, st); err == nil && !ok {
			continue // no committed manifest: no table
		}
		db.stores[strings.ToLower(name)] = st
	}
	return db, nil
}

// tableStore returns the store of table key under the remote root.
func (r *remoteDB) tableStore(key string) (store.Store, error) { return r.scheme.Sub(r.root, key) }

// drop deletes the objects of a remote table. S3 has no rename, so the
// drop's commit point is the deletion of the last manifest: manifests go
// first, oldest to newest (a reader meanwhile still finds the newest
// version, whose files are all there, never an older one), then the rest.
// An interrupted drop leaves files under a prefix with no manifest, which
// is no table (Open skips it; a CREATE of the name reuses it).
func (r *remoteDB) drop(ctx context.Context, st store.Store) error {
	vs, err := st.List(ctx, "_versions/")
	if err != nil {
		return err
	}
	for _, p := range vs { // sorted: zero-padded version numbers ascend
		if err := st.Delete(ctx, p); err != nil {
			return err
		}
	}
	rest, err := st.List(ctx, "")
	if err != nil {
		return err
	}
	for _, p := range rest {
		if err := st.Delete(ctx, p); err != nil {
			return err
		}
	}
	return nil
}
