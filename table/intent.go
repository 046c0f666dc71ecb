package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store"
)

// Write intents: how a writer in flight is visible to Cleanup (VACUUM).
//
// A writer stores files (data files, row maps) before the commit that
// references them, so until it commits they are orphans in the eyes of a
// sweep that only reads manifests. Before it stores its first file, a
// writer puts an intent record, _intents/<writer id>.intent, naming every
// file it is about to store (the record is rewritten before each new
// file), the holder (host, boot id, pid) and an expiry. A goroutine renews
// the expiry every TTL/4. The commit renews the record once more, checks
// that every file it adds exists at its recorded size and only then
// publishes; the record is deleted after the commit (published or failed).
//
// Who decides that an intent is lost: the Cleanup that acts on it, not the
// writer's clock. A renewal that lands after the expiry (a writer starved
// of CPU, or its put queued behind its own data-file fsyncs: the SF 10
// load of issue 30 lost its write after 37 minutes that way, with no
// VACUUM running) loses nothing by itself. A Cleanup that finds a record
// expired revokes it before it removes any file the record names:
//
//	Cleanup                                  writer (after every put W)
//	read record R (expired)
//	put _intents/<id>.revoked                put record W
//	read the record again                    read _intents/<id>.revoked
//	  same bytes as R: revoked,                present: ErrIntentLost,
//	    its files go like any orphan's           the write is abandoned
//	  changed: renewed meanwhile, the files    absent: go on
//	    stay (the writer fails at its next
//	    renewal all the same)
//	  gone: the writer finished
//
// Both sides write, then read what the other writes (the store is
// linearizable: local files, S3). If the writer's read found no marker, it
// came before the marker's put, so the writer's put W came before
// Cleanup's second read, which then sees W and keeps the files. If Cleanup
// saw the same bytes, any later put of the writer is followed by a read
// that finds the marker. The marker stays until the writer has seen it
// (its end deletes it) or its holder is known dead (see readIntents);
// Cleanup never withdraws one, so any number of concurrent Cleanups are
// safe too.
//
// On the holder's own host Cleanup does not go by the expiry at all: a
// record whose holder process (pid and start time) still runs is live, and
// one whose holder is gone is dead at once. Only records of other hosts
// (a shared store) are judged by their expiry. The price: a record its
// holder failed to delete (end's delete refused by the store) keeps its
// files until that process exits.
//
// Cleanup never removes a file a live intent names, and removes expired
// intents. Why a file Cleanup saw can never be a live writer's: Cleanup
// lists the files first, then the intents, then reads the manifests. A
// file f in its listing was stored before the listing, and its writer put
// an intent naming f before storing f. When Cleanup then lists the
// intents, either that intent is there and live, and f is kept; or the
// writer deleted it, which it does only after its commit was published or
// had failed: if published, the manifests Cleanup reads next reference f;
// if failed, f is an orphan. Or Cleanup revoked it: the writer fails at
// its next renewal, at the latest the one its commit makes before it
// checks its files.
//
// The one window left is a writer on another host stalled (stopped,
// swapped out) for more than the TTL between its final file check and the
// manifest put: a file removed then makes the version's reads fail with
// ErrCorrupt naming the file, never wrong rows.

// ErrIntentLost: a VACUUM revoked the writer's intent (it found the record
// expired), or the record could not be renewed at all before it expired,
// so VACUUM may have removed the writer's files. The write is abandoned;
// retrying it is safe.
var ErrIntentLost = errkind.New(errkind.Conflict, "table: write intent lost")

// ErrMissingFile: a commit found a file it references missing or of the
// wrong size (removed by VACUUM while the writer was stalled, or lost by
// the store). Nothing was published.
var ErrMissingFile = errkind.New(errkind.Conflict, "table: a file of this write is missing")

const intentsDir = "_intents/"

// DefaultIntentTTL is how long an intent record stays live without a
// renewal. Writers renew every TTL/4.
const DefaultIntentTTL = 2 * time.Minute

// intentTTL is DefaultIntentTTL but for tests of renewal.
var intentTTL = DefaultIntentTTL

// intentHostForTest, when set, is the host the intents begun name instead
// of this one: a test's writer "on another host".
var intentHostForTest string

// intentClockSkew is how far Cleanup's clock may run ahead of a writer's:
// an intent is treated as live until its expiry plus this. A variable for
// tests of revocation.
var intentClockSkew = 10 * time.Second

// revokedKeep is how long Cleanup keeps the revocation marker of a writer
// on another host after the record's expiry, waiting for the writer to
// see it. A writer stalled for longer and then resumed finds no marker;
// its commit's file check fails it with ErrMissingFile instead.
const revokedKeep = 24 * time.Hour

// Intent record layout (integers little-endian, u/v = uvarint):
//
//	"SRIN" | u16 format version | u16 flags=0 | u32 body length | body | u32 crc32c
//
// body: str writer id | str purpose | str host | str boot id | uv pid |
// uv process start (clock ticks since boot, 0 unknown) | i64 created ns |
// i64 expires ns | uv n, n × str file | uv m, m × str prefix.
const (
	intentMagic   = "SRIN"
	intentVersion = 1
)

// intentRecord is one writer's intent.
type intentRecord struct {
	Writer   string
	Purpose  string
	Host     string
	BootID   string
	PID      uint64
	Start    uint64 // the holder process's start time, for the same-host liveness check
	Created  int64
	Expires  int64
	Files    []string
	Prefixes []string
}

func intentPath(writer string) string { return intentsDir + writer + ".intent" }

// revokedPath is where Cleanup marks writer's intent revoked. The marker
// holds a copy of the record it revoked (the holder, for its own cleanup).
func revokedPath(writer string) string { return intentsDir + writer + ".revoked" }

func (r *intentRecord) marshal() []byte {
	var e encoder
	e.str(r.Writer)
	e.str(r.Purpose)
	e.str(r.Host)
	e.str(r.BootID)
	e.uv(r.PID)
	e.uv(r.Start)
	e.i64(r.Created)
	e.i64(r.Expires)
	e.uv(uint64(len(r.Files)))
	for _, f := range r.Files {
		e.str(f)
	}
	e.uv(uint64(len(r.Prefixes)))
	for _, p := range r.Prefixes {
		e.str(p)
	}
	return SealEnvelope(intentMagic, intentVersion, e.b)
}

// unmarshalIntent decodes and checks an intent record; any mismatch is
// ErrCorrupt naming the record's path p.
func unmarshalIntent(p string, b []byte) (*intentRecord, error) {
	bad := func(format string, args ...any) error {
		return errorf(ErrCorrupt, "intent %s: "+format, append([]any{p}, args...)...)
	}
	body, err := OpenEnvelope(b, intentMagic, intentVersion, bad)
	if err != nil {
		return nil, err
	}
	d := &decoder{b: body}
	r := &intentRecord{
		Writer: d.str("writer"), Purpose: d.str("purpose"), Host: d.str("host"), BootID: d.str("boot id"),
		PID: d.uv("pid"), Start: d.uv("process start"), Created: d.i64("created"), Expires: d.i64("expires"),
	}
	n := d.count("files", 1)
	for i := 0; i < n && d.err == nil; i++ {
		r.Files = append(r.Files, d.str("file"))
	}
	n = d.count("prefixes", 1)
	for i := 0; i < n && d.err == nil; i++ {
		r.Prefixes = append(r.Prefixes, d.str("prefix"))
	}
	if d.err != nil {
		return nil, bad("%w", d.err)
	}
	if len(d.b) != 0 {
		return nil, bad("%d trailing bytes", len(d.b))
	}
	if intentPath(r.Writer) != p {
		return nil, bad("names writer %q", r.Writer)
	}
	return r, nil
}

// intent is a writer's lease: created lazily by the first cover, renewed
// by a goroutine, deleted by end. Safe for concurrent use (the tasks of an
// in-process compaction share one).
type intent struct {
	st      store.Store
	ttl     time.Duration
	cancel  context.CancelCauseFunc
	renewed chan struct{} // closed by end: stops the renewal goroutine
	done    chan struct{} // closed when the renewal goroutine has returned

	mu      sync.Mutex // held across puts, so an older record never overwrites a newer one
	rec     intentRecord
	stored  bool  // the record was put
	lost    error // ErrIntentLost once renewal failed or was revoked
	revoked bool  // a revocation marker was found (end deletes it)
	covered map[string]bool
}

type intentKey struct{}

// holdIntent returns ctx carrying the writer's intent and the function
// that ends it. A ctx that already carries one (an in-process compaction
// running its tasks) shares it, and end does nothing: the outermost
// holder ends it after its commit. end turns a cancellation caused by a
// lost intent into ErrIntentLost and deletes the record.
func holdIntent(ctx context.Context, st store.Store, purpose string) (context.Context, func(*error)) {
	if _, ok := ctx.Value(intentKey{}).(*intent); ok {
		return ctx, func(*error) {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	in := &intent{st: st, ttl: intentTTL, cancel: cancel, renewed: make(chan struct{}), done: make(chan struct{}), covered: map[string]bool{}}
	in.rec = intentRecord{Writer: NewID(), Purpose: purpose}
	in.rec.Host, in.rec.BootID, in.rec.PID, in.rec.Start = holder()
	if intentHostForTest != "" {
		in.rec.Host = intentHostForTest
	}
	ctx = context.WithValue(ctx, intentKey{}, in)
	return ctx, func(errp *error) {
		if errp != nil && *errp != nil {
			if c := context.Cause(ctx); errors.Is(c, ErrIntentLost) && !errors.Is(*errp, ErrIntentLost) {
				*errp = fmt.Errorf("%w (%w)", c, *errp)
			}
		}
		in.end(ctx)
		cancel(nil)
	}
}

func intentOf(ctx context.Context) *intent {
	in, _ := ctx.Value(intentKey{}).(*intent)
	return in
}

// coverFile records in ctx's intent, before the caller stores it, that the
// writer is about to store p. Without an intent in ctx it does nothing.
func coverFile(ctx context.Context, p string) error {
	if in := intentOf(ctx); in != nil {
		return in.cover(ctx, path.Clean(p), false)
	}
	return nil
}

// cover adds p (a file, or with prefix every path under it) to the record
// and puts it; the first cover creates the record and starts the renewal.
func (in *intent) cover(ctx context.Context, p string, prefix bool) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.lost != nil {
		return in.lost
	}
	if in.covered[p] {
		return nil
	}
	in.covered[p] = true
	if prefix {
		in.rec.Prefixes = append(in.rec.Prefixes, p)
	} else {
		in.rec.Files = append(in.rec.Files, p)
	}
	first := !in.stored
	if first {
		in.rec.Created = time.Now().UnixNano()
	}
	if err := in.putLocked(ctx); err != nil {
		return err
	}
	if first {
		go in.renewLoop(context.WithoutCancel(ctx))
	}
	return nil
}

// putLocked stores the record with a fresh expiry, then looks for a
// revocation marker: after a put that a Cleanup may have raced with (any
// but the first), a marker means the files may be gone. How late the put
// landed does not matter (see the file comment).
func (in *intent) putLocked(ctx context.Context) error {
	prev := in.rec.Expires
	in.rec.Expires = time.Now().Add(in.ttl).UnixNano()
	if err := in.st.Put(ctx, intentPath(in.rec.Writer), in.rec.marshal()); err != nil {
		in.rec.Expires = prev
		return fmt.Errorf("table: write intent %s: %w", intentPath(in.rec.Writer), err)
	}
	if !in.stored {
		in.stored = true
		return nil // a fresh writer id: nobody can have revoked it
	}
	_, err := in.st.Get(ctx, revokedPath(in.rec.Writer))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("table: write intent %s: check revocation: %w", intentPath(in.rec.Writer), err)
	}
	in.revoked = true
	in.lost = errorf(ErrIntentLost, "intent %s (%s) was revoked by a VACUUM that found it expired (at %s); it may have removed its files",
		intentPath(in.rec.Writer), in.rec.Purpose, time.Unix(0, prev).UTC().Format(time.RFC3339Nano))
	in.cancel(in.lost)
	return in.lost
}

// renew puts the record with a fresh expiry now (the commit calls it right
// before checking its files, so the check and the manifest put happen
// while the record is live for a whole TTL).
func (in *intent) renew(ctx context.Context) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.lost != nil {
		return in.lost
	}
	if !in.stored {
		return nil // no file stored under this intent
	}
	return in.putLocked(ctx)
}

func (in *intent) renewLoop(ctx context.Context) {
	defer close(in.done)
	tick := time.NewTicker(in.ttl / 4)
	defer tick.Stop()
	for {
		select {
		case <-in.renewed:
			return
		case <-tick.C:
		}
		in.mu.Lock()
		if in.lost != nil {
			in.mu.Unlock()
			return
		}
		err := in.putLocked(ctx)
		if err != nil && in.lost == nil && time.Until(time.Unix(0, in.rec.Expires)) <= in.ttl/4 {
			// The store refuses the renewals (an error, not a slow put)
			// and the next tick would come too late: give up now, while
			// the record is still live, rather than go on writing files
			// a VACUUM on another host may take once it lapses.
			in.lost = errorf(ErrIntentLost, "intent %s (%s): renewal failed: %w", intentPath(in.rec.Writer), in.rec.Purpose, err)
			in.cancel(in.lost)
		}
		lost := in.lost != nil
		in.mu.Unlock()
		if lost {
			return
		}
	}
}

// end stops the renewal and deletes the record, and the revocation marker
// the writer found. The writer's commit has been published or has failed
// by now, so the files need it no longer.
func (in *intent) end(ctx context.Context) {
	in.mu.Lock()
	stored, revoked := in.stored, in.revoked
	close(in.renewed)
	in.mu.Unlock()
	if !stored {
		return
	}
	<-in.done
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	// A failed delete leaves a record that expires; Cleanup removes it.
	_ = in.st.Delete(dctx, intentPath(in.rec.Writer))
	if revoked {
		_ = in.st.Delete(dctx, revokedPath(in.rec.Writer))
	}
}

// liveIntents is what Cleanup learned from the intent records: the files
// and prefixes of live ones, the paths of expired ones, and the revocation
// markers no writer will read any more.
type liveIntents struct {
	refs    refSet
	expired []string
	stale   []string // revocation markers to delete
	live    int
}

// readIntents lists and reads the intent records in st. A record that does
// not decode stops Cleanup (ErrCorrupt: its holder and files are unknown).
// A record whose holder runs on this host (same host name and boot id) is
// live while that process runs and dead once it is gone, whatever its
// expiry; another host's record is live until it expired more than the
// clock skew ago, and then revoked (revoke) before it counts as expired.
// "This host" is the same host name and boot id; two writers in separate
// pid namespaces sharing both (containers with one host name over one
// directory) would confuse the process check, and the worst it does is
// make such a writer's commit fail with ErrMissingFile.
//
// With dryRun nothing is written: an expired record is reported expired
// without a revocation.
func readIntents(ctx context.Context, st store.Store, now time.Time, dryRun bool) (*liveIntents, error) {
	ps, err := st.List(ctx, intentsDir)
	if err != nil {
		return nil, fmt.Errorf("table: cleanup: list %s: %w", intentsDir, err)
	}
	li := &liveIntents{refs: refSet{files: map[string]bool{}}}
	records := map[string]bool{}
	var markers []string
	for _, p := range ps {
		switch {
		case strings.HasSuffix(p, ".intent"):
			records[strings.TrimSuffix(strings.TrimPrefix(p, intentsDir), ".intent")] = true
		case strings.HasSuffix(p, ".revoked"):
			markers = append(markers, p)
		}
	}
	for writer := range records {
		p := intentPath(writer)
		b, err := st.Get(ctx, p)
		if errors.Is(err, store.ErrNotFound) {
			continue // its writer finished meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("table: cleanup: read %s: %w", p, err)
		}
		r, err := unmarshalIntent(p, b)
		if err != nil {
			return nil, fmt.Errorf("table: cleanup: %w", err)
		}
		live := false
		if alive, local := holderAlive(r); local {
			live = alive
		} else if !now.After(time.Unix(0, r.Expires).Add(intentClockSkew)) {
			live = true
		} else if !dryRun {
			rv, err := revoke(ctx, st, r.Writer, b)
			if err != nil {
				return nil, err
			}
			if rv == endedMeantime {
				continue // nothing of it to keep, no record to remove
			}
			live = rv == renewedMeantime
		}
		if !live {
			li.expired = append(li.expired, p)
			continue
		}
		li.live++
		for _, f := range r.Files {
			li.refs.files[f] = true
		}
		li.refs.prefixes = append(li.refs.prefixes, r.Prefixes...)
	}
	// A marker outlives its record until the writer has seen it (the
	// writer deletes it) or cannot any more: its holder on this host is
	// gone, or it expired revokedKeep ago.
	for _, p := range markers {
		writer := strings.TrimSuffix(strings.TrimPrefix(p, intentsDir), ".revoked")
		if records[writer] {
			continue // the record's own fate decides; the next Cleanup looks again
		}
		b, err := st.Get(ctx, p)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("table: cleanup: read %s: %w", p, err)
		}
		r, err := unmarshalIntent(intentPath(writer), b)
		if err != nil {
			return nil, fmt.Errorf("table: cleanup: revocation marker %s: %w", p, err)
		}
		alive, local := holderAlive(r)
		if (local && !alive) || (!local && now.After(time.Unix(0, r.Expires).Add(revokedKeep))) {
			li.stale = append(li.stale, p)
		}
	}
	return li, nil
}

// revocation is what revoke found when it read the record again.
type revocation int

const (
	revokedNow      revocation = iota // unchanged: revoked, its files are orphans
	renewedMeantime                   // rewritten: the writer is alive, its files stay
	endedMeantime                     // gone: the writer ended (committed or failed)
)

// revoke marks the expired record rec (the bytes Cleanup read) of writer
// revoked, then reads the record again (see the file comment for why this
// order is safe). The marker stays in every case: a writer that renewed
// meanwhile fails at its next renewal, which is safe, whereas withdrawing
// the marker could hide it from a writer whose files a concurrent Cleanup
// revoked a moment before. Cleanup removes markers only once no writer can
// read them (readIntents).
func revoke(ctx context.Context, st store.Store, writer string, rec []byte) (revocation, error) {
	if err := st.Put(ctx, revokedPath(writer), rec); err != nil {
		return 0, fmt.Errorf("table: cleanup: revoke %s: %w", intentPath(writer), err)
	}
	b, err := st.Get(ctx, intentPath(writer))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return endedMeantime, nil
	case err != nil:
		return renewedMeantime, nil // unknown: keep the files this time
	case !bytes.Equal(b, rec):
		return renewedMeantime, nil
	}
	return revokedNow, nil
}

// holderAlive reports, for a record whose holder is on this host (local),
// whether the holder process still runs. Elsewhere (another host, or no
// boot id to tell) local is false and only the expiry can tell.
func holderAlive(r *intentRecord) (alive, local bool) {
	host, boot, _, _ := holder()
	if boot == "" || r.Host != host || r.BootID != boot {
		return false, false
	}
	return processAlive(r.PID, r.Start), true
}

var (
	holderOnce                     sync.Once
	holderHost, holderBoot         string
	holderPID, holderProcessStartT uint64
)

// holder identifies this process: host name, boot id and pid, and the
// process's start time (Linux; elsewhere the boot id is empty and the
// liveness check is off, leaving expiry alone to end an intent).
func holder() (host, boot string, pid, start uint64) {
	holderOnce.Do(func() {
		holderHost, _ = os.Hostname()
		if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
			holderBoot = strings.TrimSpace(string(b))
		}
		holderPID = uint64(os.Getpid())
		holderProcessStartT, _ = processStart(holderPID)
	})
	return holderHost, holderBoot, holderPID, holderProcessStartT
}

// processStart reads a process's start time (field 22 of
// /proc/<pid>/stat, clock ticks since boot).
func processStart(pid uint64) (uint64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(string(b[i+1:]))
	// fields[0] is field 3 (state), so field 22 is fields[19].
	if len(fields) < 20 {
		return 0, false
	}
	var v uint64
	if _, err := fmt.Sscan(fields[19], &v); err != nil {
		return 0, false
	}
	return v, true
}

// processAlive reports whether process pid, started at start, still runs on
// this host. When in doubt it says yes: a live-looking holder only keeps
// files longer.
func processAlive(pid, start uint64) bool {
	got, ok := processStart(pid)
	if !ok {
		_, err := os.Stat("/proc/self/stat")
		return err != nil // no /proc: cannot tell
	}
	return start == 0 || got == start
}
