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

// TestRevokeRacesRenewal runs a writer's renewal (or its end) at each
// point of a Cleanup's revocation of its expired intent (a writer on
// another host, judged by its expiry). Whatever the interleaving, Cleanup
// removes the files only if the writer is bound to learn that its intent
// is lost; and the writer learns it whenever a revocation was attempted.
func TestRevokeRacesRenewal(t *testing.T) {
	old := intentHostForTest
	intentHostForTest = "elsewhere.invalid"
	defer func() { intentHostForTest = old }()
	late := time.Now().Add(time.Hour) // Cleanup's clock: every record has expired
	for _, c := range []struct {
		name     string
		act      string // what the writer does, and when: before or after the marker lands
		wantKept bool   // Cleanup keeps the files
		wantLost bool   // the writer's renewal in the hook finds the marker
	}{
		{"no renewal", "", false, false},
		{"renewed before the marker", "renew before", true, false},
		{"renewed after the marker", "renew after", true, true},
		{"ended before the marker", "end before", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := &markerHookStore{Store: store.NewMemory()}
			ctx, end := holdIntent(context.Background(), st, "test")
			in := intentOf(ctx)
			if err := coverFile(ctx, "data/x.arrow"); err != nil {
				t.Fatal(err)
			}
			var hookErr error
			ended := false
			st.hook = func(after bool) {
				switch {
				case c.act == "renew before" && !after, c.act == "renew after" && after:
					hookErr = in.renew(ctx)
				case c.act == "end before" && !after:
					end(nil)
					ended = true
				}
			}
			bg := context.Background() // Cleanup's own; the writer's ctx ends with it
			li, err := readIntents(bg, st, late, false)
			if err != nil {
				t.Fatal(err)
			}
			st.hook = nil
			if got := li.refs.has("data/x.arrow"); got != c.wantKept {
				t.Fatalf("file kept %v, want %v", got, c.wantKept)
			}
			if lost := errors.Is(hookErr, ErrIntentLost); lost != c.wantLost {
				t.Fatalf("renewal in the hook: %v, want lost %v", hookErr, c.wantLost)
			}
			if _, err := st.Get(bg, revokedPath(in.rec.Writer)); err != nil {
				t.Fatalf("the marker is withdrawn: %v", err)
			}
			if ended {
				if len(li.expired) != 0 {
					t.Fatalf("an ended writer's record counted expired: %v", li.expired)
				}
				return
			}
			// Whatever happened, a writer that goes on now learns it lost.
			if err := in.renew(ctx); !errors.Is(err, ErrIntentLost) {
				t.Fatalf("renewal after the revocation: %v", err)
			}
			werr := error(ErrIntentLost)
			end(&werr)
			if ps, _ := st.List(bg, intentsDir); len(ps) != 0 {
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
