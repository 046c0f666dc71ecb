package table_test

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

func committedRecord(id string) *table.TxnRecord {
	return &table.TxnRecord{ID: id, State: table.TxnCommitted, DecidedNanos: 1_700_000_000_123_456_789, By: "commit",
		Tables: []table.TxnTable{{Name: "accounts", Version: 7}, {Name: "ledger", Version: 42}}}
}

// A record reads back as written, committed or aborted, and only under
// its own path.
func TestTxnRecordRoundTrip(t *testing.T) {
	id := table.NewID()
	for _, r := range []*table.TxnRecord{
		committedRecord(id),
		{ID: id, State: table.TxnAborted, DecidedNanos: -5, By: "writer gave up waiting"},
	} {
		b, err := r.MarshalBinary()
		require.NoError(t, err)
		got, err := table.UnmarshalTxnRecord(table.TxnRecordPath(id), b)
		require.NoError(t, err)
		require.Equal(t, r, got)
		_, err = table.UnmarshalTxnRecord(table.TxnRecordPath(table.NewID()), b)
		require.ErrorIs(t, err, table.ErrCorrupt, "a record copied under another transaction's name")
	}
}

// A record that would not read back is refused before it is written,
// as a caller's error.
func TestTxnRecordMarshalRefusesBadRecords(t *testing.T) {
	id := table.NewID()
	for name, r := range map[string]*table.TxnRecord{
		"id not hex":        {ID: "../../x" + id[7:], State: table.TxnAborted},
		"short id":          {ID: id[:31], State: table.TxnAborted},
		"upper-case id":     {ID: "A" + id[1:], State: table.TxnAborted},
		"pending":           {ID: id, State: table.TxnPending},
		"unknown state":     {ID: id, State: 9},
		"commit no tables":  {ID: id, State: table.TxnCommitted},
		"abort with tables": {ID: id, State: table.TxnAborted, Tables: []table.TxnTable{{Name: "a", Version: 2}}},
		"unsorted":          {ID: id, State: table.TxnCommitted, Tables: []table.TxnTable{{Name: "b", Version: 2}, {Name: "a", Version: 2}}},
		"duplicate":         {ID: id, State: table.TxnCommitted, Tables: []table.TxnTable{{Name: "a", Version: 2}, {Name: "a", Version: 3}}},
		"no name":           {ID: id, State: table.TxnCommitted, Tables: []table.TxnTable{{Name: "", Version: 2}}},
		"version 1":         {ID: id, State: table.TxnCommitted, Tables: []table.TxnTable{{Name: "a", Version: 1}}},
	} {
		_, err := r.MarshalBinary()
		require.ErrorIs(t, err, table.ErrInvalidArgument, name)
	}
}

// seal builds a record file around body with a correct header and crc, so
// the content checks behind the checksum are reached.
func seal(version, flags uint16, body []byte) []byte {
	out := []byte("SRTX")
	out = binary.LittleEndian.AppendUint16(out, version)
	out = binary.LittleEndian.AppendUint16(out, flags)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(body)))
	out = append(out, body...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crc32.MakeTable(crc32.Castagnoli)))
}

// body encodes a record body field by field (strings and uvarints as the
// format has them), so a test can write what MarshalBinary refuses to.
func body(id string, state uint64, by string, tables ...any) []byte {
	var b []byte
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	str(id)
	b = binary.AppendUvarint(b, state)
	b = binary.LittleEndian.AppendUint64(b, 1)
	str(by)
	b = binary.AppendUvarint(b, uint64(len(tables)/2))
	for i := 0; i+1 < len(tables); i += 2 {
		str(tables[i].(string))
		b = binary.AppendUvarint(b, tables[i+1].(uint64))
	}
	return b
}

// Every damaged record is ErrCorrupt, never a panic nor a decision: each
// flipped bit (the checksum), each truncation, and records with a valid
// checksum around bad headers or bad content.
func TestTxnRecordCorruptionIsTyped(t *testing.T) {
	id := table.NewID()
	p := table.TxnRecordPath(id)
	good, err := committedRecord(id).MarshalBinary()
	require.NoError(t, err)
	for i := range good {
		for bit := 0; bit < 8; bit++ {
			b := append([]byte(nil), good...)
			b[i] ^= 1 << bit
			_, err := table.UnmarshalTxnRecord(p, b)
			require.ErrorIs(t, err, table.ErrCorrupt, "bit %d of byte %d flipped", bit, i)
		}
	}
	for n := 0; n < len(good); n++ {
		_, err := table.UnmarshalTxnRecord(p, good[:n])
		require.ErrorIs(t, err, table.ErrCorrupt, "truncated to %d bytes", n)
	}
	ok := body(id, 1, "commit", "a", uint64(2))
	_, err = table.UnmarshalTxnRecord(p, seal(1, 0, ok))
	require.NoError(t, err, "the hand-built record is valid")
	long := seal(1, 0, ok)
	binary.LittleEndian.PutUint32(long[8:], uint32(len(ok)+1))
	for name, b := range map[string][]byte{
		"format version 2":  seal(2, 0, ok),
		"format version 0":  seal(0, 0, ok),
		"flags":             seal(1, 1, ok),
		"body length":       long,
		"bad magic":         append([]byte("SRMF"), seal(1, 0, ok)[4:]...),
		"trailing bytes":    seal(1, 0, append(ok, 0)),
		"state 0":           seal(1, 0, body(id, 0, "x", "a", uint64(2))),
		"state 3":           seal(1, 0, body(id, 3, "x")),
		"state 257":         seal(1, 0, body(id, 257, "x", "a", uint64(2))),
		"abort with tables": seal(1, 0, body(id, 2, "x", "a", uint64(2))),
		"commit no tables":  seal(1, 0, body(id, 1, "x")),
		"unsorted":          seal(1, 0, body(id, 1, "x", "b", uint64(2), "a", uint64(2))),
		"version 1":         seal(1, 0, body(id, 1, "x", "a", uint64(1))),
		"bad id":            seal(1, 0, body("../x", 1, "x", "a", uint64(2))),
		// A table count far beyond what the bytes can hold: refused
		// before anything is allocated for it.
		"table count": seal(1, 0, append(body(id, 1, "x")[:len(body(id, 1, "x"))-1], 0xff, 0xff, 0xff, 0xff, 0x0f)),
		// A string length running past the body.
		"string length": seal(1, 0, append([]byte{0x40}, id...)),
	} {
		_, err := table.UnmarshalTxnRecord(p, b)
		require.ErrorIs(t, err, table.ErrCorrupt, name)
	}
}

// FuzzUnmarshalTxnRecord: any bytes decode to ErrCorrupt or to a record
// that encodes back to the same bytes; never a panic.
func FuzzUnmarshalTxnRecord(f *testing.F) {
	id := "0123456789abcdef0123456789abcdef"
	good, err := committedRecord(id).MarshalBinary()
	require.NoError(f, err)
	f.Add(good)
	f.Add(seal(1, 0, body(id, 2, "x")))
	f.Add(seal(1, 0, body(id, 1, "x", "a", uint64(2), "b", uint64(1<<40))))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := table.UnmarshalTxnRecord(table.TxnRecordPath(id), b)
		if err != nil {
			require.ErrorIs(t, err, table.ErrCorrupt)
			return
		}
		again, err := r.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, b, again)
	})
}

// Concurrent decisions on one transaction, on the memory store and on a
// local directory (S3 has the same put-if-absent contract, checked by
// s3store's own tests): exactly one is stored, and every DecideTxn and
// ReadTxn returns that one, whatever each asked for. This is what makes a
// writer's commit point and another party's abort exclusive.
func TestDecideTxnOneWinner(t *testing.T) {
	ctx := context.Background()
	local, err := store.NewLocal(t.TempDir())
	require.NoError(t, err)
	for name, st := range map[string]store.Store{"memory": store.NewMemory(), "local": local} {
		for round := 0; round < 20; round++ {
			id := table.NewID()
			state, rec, err := table.ReadTxn(ctx, st, id)
			require.NoError(t, err)
			require.Equal(t, table.TxnPending, state, "%s: no record yet", name)
			require.Nil(t, rec)
			const n = 8
			got := make([]*table.TxnRecord, n)
			var wg sync.WaitGroup
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := &table.TxnRecord{ID: id, State: table.TxnAborted, By: "aborter"}
					if i%2 == 0 {
						r = committedRecord(id)
					}
					d, err := table.DecideTxn(ctx, st, r)
					if err != nil {
						t.Error(err)
						return
					}
					got[i] = d
				}()
			}
			wg.Wait()
			state, rec, err = table.ReadTxn(ctx, st, id)
			require.NoError(t, err)
			require.NotEqual(t, table.TxnPending, state)
			for i, d := range got {
				require.Equal(t, rec, d, "%s round %d: decider %d saw another decision", name, round, i)
			}
		}
	}
}

// brokenStore says a record exists and then cannot find it, or fails
// every put.
type brokenStore struct {
	store.Store
	putErr error
}

func (s brokenStore) PutIfAbsent(ctx context.Context, p string, b []byte) error { return s.putErr }

// A decision that cannot be known is an error, never a state: a put that
// failed (it may or may not have landed), and a store whose put-if-absent
// reports a record its get does not find.
func TestDecideTxnUnknownIsAnError(t *testing.T) {
	ctx := context.Background()
	io := errors.New("connection reset")
	_, err := table.DecideTxn(ctx, brokenStore{store.NewMemory(), io}, committedRecord(table.NewID()))
	require.ErrorIs(t, err, io)
	_, err = table.DecideTxn(ctx, brokenStore{store.NewMemory(), store.ErrExists}, committedRecord(table.NewID()))
	require.ErrorIs(t, err, table.ErrCorrupt)

	_, _, err = table.ReadTxn(ctx, store.NewMemory(), "../../_versions/x")
	require.ErrorIs(t, err, table.ErrInvalidArgument)
	st := store.NewMemory()
	id := table.NewID()
	require.NoError(t, st.Put(ctx, table.TxnRecordPath(id), []byte("SRTX garbage")))
	_, _, err = table.ReadTxn(ctx, st, id)
	require.ErrorIs(t, err, table.ErrCorrupt, "a damaged record is not read as pending")
}
