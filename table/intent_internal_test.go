package table

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stablerow/stablerow/table/store"
)

// TestIntentRecordFormat: an intent record round-trips, and a flipped
// byte, a truncation, another format version or a record stored under
// another writer's name is ErrCorrupt naming the record's path.
func TestIntentRecordFormat(t *testing.T) {
	r := intentRecord{Writer: NewID(), Purpose: "append", Host: "h", BootID: "b", PID: 42, Start: 7,
		Created: time.Now().UnixNano(), Expires: time.Now().Add(time.Minute).UnixNano(),
		Files: []string{"data/a.arrow", "_rowmaps/b.rowmap"}, Prefixes: []string{"_indices/c/"}}
	p := intentPath(r.Writer)
	b := r.marshal()
	got, err := unmarshalIntent(p, b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Writer != r.Writer || got.PID != 42 || got.Expires != r.Expires || len(got.Files) != 2 || got.Prefixes[0] != "_indices/c/" {
		t.Fatalf("round trip: %+v", got)
	}
	bad := func(what string, b []byte, path string) {
		t.Helper()
		_, err := unmarshalIntent(path, b)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
			t.Fatalf("%s: %v", what, err)
		}
	}
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0x08
		bad("flipped byte", c, p)
	}
	for n := range len(b) {
		bad("truncated", b[:n], p)
	}
	v2 := append([]byte(nil), b...)
	binary.LittleEndian.PutUint16(v2[4:], intentVersion+1)
	bad("format version", v2, p)
	bad("other writer's name", b, intentPath(NewID()))
}

// markerHookStore calls hook around the put of a revocation marker: before
// it lands (after false) and after (after true).
type markerHookStore struct {
	store.Store
	hook func(after bool)
}

func (s *markerHookStore) Put(ctx context.Context, p string, b []byte) error {
	if !strings.HasSuffix(p, ".revoked") || s.hook == nil {
		return s.Store.Put(ctx, p, b)
	}
	s.hook(false)
	err := s.Store.Put(ctx, p, b)
	s.hook(true)
	return err
}

// TestRevokeRacesRenewal runs a writer's renewal at each point of a
// Cleanup's revocation of its expired intent (a writer on another host,
// judged by its expiry). Whatever the interleaving, either Cleanup keeps
// the files, or the writer learns that its intent is lost; never both a
// removal and a writer that goes on.
func TestRevokeRacesRenewal(t *testing.T) {
	old := intentHostForTest
	intentHostForTest = "elsewhere.invalid"
	defer func() { intentHostForTest = old }()
	late := time.Now().Add(time.Hour) // Cleanup's clock: every record has expired
	for _, c := range []struct {
		name      string
		renew     string // "before" or "after" the marker lands, or "" for none
		wantLive  bool
		wantLost  bool
		markerAft bool // the marker is still there after Cleanup
	}{
		{"no renewal", "", false, true, true},
		{"renewed before the marker", "before", true, false, false},
		{"renewed after the marker", "after", true, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := &markerHookStore{Store: store.NewMemory()}
			ctx, end := holdIntent(context.Background(), st, "test")
			in := intentOf(ctx)
			if err := coverFile(ctx, "data/x.arrow"); err != nil {
				t.Fatal(err)
			}
			var renewErr error
			st.hook = func(after bool) {
				if (c.renew == "before" && !after) || (c.renew == "after" && after) {
					renewErr = in.renew(ctx)
				}
			}
			li, err := readIntents(ctx, st, late, false)
			if err != nil {
				t.Fatal(err)
			}
			st.hook = nil
			if got := li.refs.has("data/x.arrow"); got != c.wantLive {
				t.Fatalf("file kept %v, want %v", got, c.wantLive)
			}
			if _, err := st.Get(ctx, revokedPath(in.rec.Writer)); (err == nil) != c.markerAft {
				t.Fatalf("marker after Cleanup: %v", err)
			}
			if c.renew == "" {
				renewErr = in.renew(ctx) // the writer's next renewal
			}
			if lost := errors.Is(renewErr, ErrIntentLost); lost != c.wantLost {
				t.Fatalf("renewal: %v, want lost %v", renewErr, c.wantLost)
			}
			var werr error
			if renewErr != nil {
				werr = renewErr
			}
			end(&werr)
			if ps, _ := st.List(context.Background(), intentsDir); len(ps) != 0 {
				t.Fatalf("left behind: %v", ps)
			}
		})
	}
}

// FuzzUnmarshalIntent: the intent record decoder (which Cleanup also runs
// on revocation markers) never panics; it either refuses the bytes as
// ErrCorrupt naming the path, or decodes a record that marshals back to
// the same bytes.
func FuzzUnmarshalIntent(f *testing.F) {
	writer := "0123456789abcdef0123456789abcdef"
	p := intentPath(writer)
	for _, r := range []intentRecord{
		{Writer: writer},
		{Writer: writer, Purpose: "append", Host: "h", BootID: "b", PID: 42, Start: 7, Created: 1, Expires: 2,
			Files: []string{"data/a.arrow", "_rowmaps/b.rowmap"}, Prefixes: []string{"_indices/c/"}},
		{Writer: "other", Expires: -1},
	} {
		f.Add(r.marshal())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := unmarshalIntent(p, b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), p) {
				t.Fatalf("not ErrCorrupt naming %s: %v", p, err)
			}
			return
		}
		if again := r.marshal(); string(again) != string(b) {
			t.Fatalf("round trip: %x became %x", b, again)
		}
	})
}
