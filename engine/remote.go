package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store"
)

// Object stores are registered, as database/sql registers drivers, rather
// than imported: the S3 store pulls in the AWS SDK (~150 packages whose
// initialization builds endpoint and schema tables at every process
// start), which a program that opens only local directories, such as the
// stablerow CLI answering a query, should neither link nor initialize.
// Package engine/s3db registers the "s3" scheme in its init; a program
// that opens s3:// locations imports it (blank import).

// RemoteRoot is the store at a remote database's prefix.
type RemoteRoot interface {
	store.Store
	// ListDirs returns the names of the sub-prefixes directly under
	// prefix (the tables, at the root).
	ListDirs(ctx context.Context, prefix string) ([]string, error)
	// Empty reports whether no object lies under the store's prefix.
	Empty(ctx context.Context) (bool, error)
}

// RemoteScheme is how engine opens the locations of one URI scheme.
type RemoteScheme struct {
	// Open returns the store at loc. A bucket that does not exist is an
	// error wrapping ErrNoDatabase.
	Open func(ctx context.Context, loc string, opt Options) (RemoteRoot, error)
	// Sub returns the store of prefix p under root (a store Open returned,
	// or one Sub returned).
	Sub func(root store.Store, p string) (store.Store, error)
}

// ErrNoRemoteStore: a location whose scheme no imported package
// registered (an s3:// location in a program that does not import
// engine/s3db). The stablerow CLI answers it by running its full build.
var ErrNoRemoteStore = errkind.New(errkind.InvalidArgument, "engine: no store registered for the location's scheme")

var remoteSchemes sync.Map // lower-case scheme → RemoteScheme

// RegisterRemote makes engine open locations of scheme with rs. It panics
// on a second registration of one scheme, as database/sql.Register does:
// two packages claiming s3:// is a build mistake, not an input error.
func RegisterRemote(scheme string, rs RemoteScheme) {
	if rs.Open == nil || rs.Sub == nil {
		panic("engine: RegisterRemote " + scheme + " without Open or Sub")
	}
	if _, dup := remoteSchemes.LoadOrStore(strings.ToLower(scheme), rs); dup {
		panic("engine: RegisterRemote called twice for " + scheme)
	}
}

// openRemoteRoot opens the root store of loc with its scheme's registered
// opener.
func openRemoteRoot(ctx context.Context, scheme, loc string, opt Options) (RemoteRoot, RemoteScheme, error) {
	v, ok := remoteSchemes.Load(strings.ToLower(scheme))
	if !ok {
		return nil, RemoteScheme{}, fmt.Errorf("%w: %s (import github.com/stablerow/stablerow/engine/s3db)", ErrNoRemoteStore, loc)
	}
	rs := v.(RemoteScheme)
	root, err := rs.Open(ctx, loc, opt)
	if err != nil {
		return nil, RemoteScheme{}, err
	}
	return root, rs, nil
}
