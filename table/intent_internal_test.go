package table

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"
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
