package access

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
)

// KeyIndex is what resolving keys needs from an index on the key column:
// exec's TakeByKeyExec and IndexProbeExec see it (exec.KeyIndex is this
// type), Resolver implements it for a BTree in a snapshot, and tests give
// reference implementations.
type KeyIndex interface {
	// Probe finds one indexed address per key, in input order (duplicate
	// keys repeated, NULL keys not found).
	Probe(ctx context.Context, keys arrow.Array) (*ProbeResult, error)
	// ProbeAll returns every indexed address of keys[i]; the probe asks
	// for it when Probe reports more than one entry for a key.
	ProbeAll(ctx context.Context, keys arrow.Array, i int) ([]uint64, error)
	// Valid sets ok[i] to whether addrs[i], an address the index answered
	// (translated when the index predates rewrites), is the index's to
	// answer in the snapshot the take reads: its row is live and its
	// fragment covered, directly or through the fragment reuse history.
	Valid(addrs []uint64, ok []bool)
	// Uncovered lists the snapshot's fragments the index does not cover,
	// where the fallback looks for the keys left over.
	Uncovered() []uint32
	String() string
}

// ProbeResult is one batched probe.
type ProbeResult struct {
	Addrs        []uint64
	Found        []bool
	Multi        []int // input positions whose key has more than one entry
	PagesDecoded int
}

// Remapper translates row addresses written before rewrites to the
// addresses of the same rows now (table/fragreuse.History implements it;
// exec.Remapper is this type).
type Remapper interface {
	// Translate writes out[i], live[i] for addrs[i]; a row no longer live
	// has live[i] == false.
	Translate(addrs []uint64, out []uint64, live []bool) error
	// Len is the number of transitions the remapper walks.
	Len() int
}

// ErrNotUnique: a key has two live rows where resolution expects at most
// one (the take's uniqueness assertion). exec.ErrNotUnique is this value,
// and the text stays the one the hash join's uniqueness check has always
// shown.
var ErrNotUnique = errors.New("exec: join key not unique")
