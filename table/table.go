package table

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/table/store"
)

// Table is an immutable snapshot of one version of a table. It is safe for
// concurrent use; writes return a new snapshot.
type Table struct {
	st     store.Store
	m      *Manifest
	schema *arrow.Schema // user columns then _rowid, _rowaddr
	opts   Options
	stage  *Staged // set on a transaction's private snapshot (staged.go)
}

// Options tune writes. The zero value is usable.
type Options struct {
	// MaxRowsPerFragment caps the rows of one data file (default 1<<20).
	MaxRowsPerFragment int
	// BatchRows is the number of rows per IPC batch in data files (default
	// 4096): the granularity of a take.
	BatchRows int
	// CommitRetries bounds rebase attempts when commits race (default 64).
	CommitRetries int
	// Txns is the database's transaction store, where the records of
	// transactions over several tables live (txnrecord.go). nil: the
	// table is not part of such a database, and a claim met is
	// ErrNoTxnStore.
	Txns store.Store
	// ClaimGrace is how long a writer waits on another transaction's
	// pending claim before it aborts that transaction (default
	// DefaultClaimGrace).
	ClaimGrace time.Duration
	// EncodedDataFiles writes data files in FormatEncoded (light-weight
	// encodings, about a fifth of the bytes at TPC-H SF 1) instead of
	// FormatColumns (Arrow buffers as they are, read in place from the
	// mapped file). Off by default until decoding is as cheap as reading
	// in place: encoded, TPC-H Q1 costs about 1.5x the CPU, Q6 3-4x, Q12
	// about 2x and Q19 2.5-3x; a 1M-id take costs no more, as it decodes only the
	// rows it takes (BENCHMARKS.md, issue 30).
	EncodedDataFiles bool
	// CommitCheck, when set, is called by every commit that adds rows
	// (appends, updates, a transaction's writes) with the version it is
	// applied on and the version it would write, before it is written; an
	// error refuses the commit and is returned. A commit that rebases
	// over a concurrent one calls it again on the new newest version, and
	// put-if-absent serializes the checked writes, so a check of the rows
	// next adds against latest's holds for every order of commits (the
	// engine's unique indexes). rebased says latest is not the version
	// the writer read.
	CommitCheck func(ctx context.Context, latest, next *Table, rebased bool) error
}

func (o Options) withDefaults() Options {
	if o.MaxRowsPerFragment <= 0 {
		o.MaxRowsPerFragment = 1 << 20
	}
	if o.BatchRows <= 0 {
		o.BatchRows = 4096
	}
	if o.CommitRetries <= 0 {
		o.CommitRetries = 64
	}
	if o.ClaimGrace <= 0 {
		o.ClaimGrace = DefaultClaimGrace
	}
	return o
}

const versionsDir = "_versions/"

func manifestPath(v uint64) string { return fmt.Sprintf("%s%020d.manifest", versionsDir, v) }

func parseManifestPath(p string) (uint64, bool) {
	s, ok := strings.CutPrefix(p, versionsDir)
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ".manifest")
	if !ok || len(s) != 20 {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

// NewID returns a random 128-bit id (UUID v4, hex) for a new file or
// directory name; the one source of fresh names for table, access and engine.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return hex.EncodeToString(b[:])
}

// Create makes a new, empty table (version 1) with the given user columns.
//
// A table exists iff a manifest of it was committed: creating is one
// put-if-absent of version 1, so a Create that fails leaves no table, only
// at worst stray files that are no table's (the engine's VACUUM removes
// such a directory), and a retry succeeds. Version 1 may be gone while
// the table lives on (Cleanup expires old versions), so any committed
// version makes Create fail with ErrExists rather than commit a second,
// unrelated version 1 beneath the existing history.
func Create(ctx context.Context, st store.Store, schema *arrow.Schema, opts Options) (*Table, error) {
	return CreateConstrained(ctx, st, schema, Constraints{}, opts)
}

func newTable(st store.Store, m *Manifest, opts Options) *Table {
	return &Table{st: st, m: m, schema: fullSchema(m.Schema), opts: opts.withDefaults()}
}

// Open opens the latest visible version of the table in st: the newest
// version, or when that is a transaction's claim not committed, the
// version the claim was applied on (txnclaim.go).
func Open(ctx context.Context, st store.Store, opts Options) (*Table, error) {
	_, m, err := head(ctx, st, opts.withDefaults(), false)
	if err != nil {
		return nil, err
	}
	return newTable(st, m, opts), nil
}

// OpenVersion opens a given version. A transaction's claim that is not
// committed is no version: ErrNotFound.
func OpenVersion(ctx context.Context, st store.Store, version uint64, opts Options) (*Table, error) {
	m, err := readManifest(ctx, st, version)
	if err != nil {
		return nil, err
	}
	state, err := resolveClaim(ctx, opts.Txns, m)
	if err != nil {
		return nil, err
	}
	if state != TxnCommitted {
		return nil, errorf(ErrNotFound, "version %d is a claim of transaction %s, which is %s", version, m.Txn.Claim.TxnID, state)
	}
	return newTable(st, m, opts), nil
}

func readManifest(ctx context.Context, st store.Store, version uint64) (*Manifest, error) {
	b, err := st.Get(ctx, manifestPath(version))
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, errorf(ErrNotFound, "version %d", version)
		}
		return nil, fmt.Errorf("table: read version %d: %w", version, err)
	}
	m, err := UnmarshalManifest(b)
	if err != nil {
		return nil, fmt.Errorf("table: version %d (%s): %w", version, manifestPath(version), err)
	}
	if m.Version != version {
		return nil, errorf(ErrCorrupt, "manifest %s says version %d", manifestPath(version), m.Version)
	}
	return m, nil
}

// listVersions returns the committed version numbers, ascending.
func listVersions(ctx context.Context, st store.Store) ([]uint64, error) {
	paths, err := st.List(ctx, versionsDir)
	if err != nil {
		return nil, fmt.Errorf("table: list versions: %w", err)
	}
	var vs []uint64
	for _, p := range paths {
		if v, ok := parseManifestPath(p); ok {
			vs = append(vs, v)
		}
	}
	return vs, nil
}

// LatestVersion returns the newest version number, or ErrNotFound. It may
// be a transaction's claim that is not (or never will be) committed: Open
// resolves it.
func LatestVersion(ctx context.Context, st store.Store) (uint64, error) {
	vs, err := listVersions(ctx, st)
	if err != nil {
		return 0, err
	}
	if len(vs) == 0 {
		return 0, errorf(ErrNotFound, "no table (no manifests under %s)", versionsDir)
	}
	return vs[len(vs)-1], nil
}

// VersionInfo describes one committed version.
type VersionInfo struct {
	Version   uint64
	Time      time.Time
	Kind      string
	LiveRows  uint64
	Fragments int
	Txn       TxnSummary
}

// Versions lists every version in st, oldest first, transactions' claims
// included whatever their state (Txn.Claim is set on a claim; it is a
// version only once its transaction committed). (*Table).Versions lists
// the committed ones.
func Versions(ctx context.Context, st store.Store) ([]VersionInfo, error) {
	vs, err := listVersions(ctx, st)
	if err != nil {
		return nil, err
	}
	out := make([]VersionInfo, 0, len(vs))
	for _, v := range vs {
		m, err := readManifest(ctx, st, v)
		if err != nil {
			return nil, err
		}
		out = append(out, VersionInfo{Version: v, Time: time.Unix(0, m.TimestampNanos), Kind: m.Txn.Kind,
			LiveRows: m.LiveRows(), Fragments: len(m.Fragments), Txn: m.Txn})
	}
	return out, nil
}

// Versions lists the table's committed versions, oldest first: Versions
// without the claims of transactions that did not (or not yet) commit,
// resolved through the transaction store of t's options.
func (t *Table) Versions(ctx context.Context) ([]VersionInfo, error) {
	all, err := Versions(ctx, t.st)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, v := range all {
		if v.Txn.Claim != nil {
			state, err := resolveClaim(ctx, t.opts.Txns, &Manifest{Version: v.Version, Txn: v.Txn})
			if err != nil {
				return nil, err
			}
			if state != TxnCommitted {
				continue
			}
		}
		out = append(out, v)
	}
	return out, nil
}

// Latest returns a snapshot of the newest version (t itself if current).
func (t *Table) Latest(ctx context.Context) (*Table, error) {
	m, err := headKnown(ctx, t.st, t.opts, t.m)
	if err != nil {
		return nil, err
	}
	if m.Version == t.m.Version {
		return t, nil
	}
	return newTable(t.st, m, t.opts), nil
}

// Store is the store the table lives in.
func (t *Table) Store() store.Store { return t.st }

// Version is the snapshot's version.
func (t *Table) Version() uint64 { return t.m.Version }

// Manifest is the snapshot's manifest; callers must not modify it.
func (t *Table) Manifest() *Manifest { return t.m }

// Schema is the full schema: user columns, then _rowid and _rowaddr.
func (t *Table) Schema() *arrow.Schema { return t.schema }

// UserSchema is the schema of the user columns only.
func (t *Table) UserSchema() *arrow.Schema { return t.m.Schema }

// Fragments lists the fragments, ascending id.
func (t *Table) Fragments() []*Fragment { return t.m.Fragments }

// FragmentIDs lists the fragment ids, ascending.
func (t *Table) FragmentIDs() []uint32 {
	ids := make([]uint32, len(t.m.Fragments))
	for i, f := range t.m.Fragments {
		ids[i] = f.ID
	}
	return ids
}

// LiveRows is the number of live rows.
func (t *Table) LiveRows() uint64 { return t.m.LiveRows() }

// Indexes lists the index records of this version.
func (t *Table) Indexes() []*IndexMeta { return t.m.Indexes }

// Index returns the index record named name, or nil.
func (t *Table) Index(name string) *IndexMeta {
	for _, ix := range t.m.Indexes {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// ColumnIndex returns the position of a column in Schema(), or -1.
func (t *Table) ColumnIndex(name string) int {
	for i, f := range t.schema.Fields() {
		if f.Name == name {
			return i
		}
	}
	for i, f := range t.schema.Fields() {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}
