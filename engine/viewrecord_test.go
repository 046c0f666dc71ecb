package engine

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/internal/fuzzseed"
	"github.com/stablerow/stablerow/sql"
)

func sampleViews() map[string]*sql.ViewDef {
	return map[string]*sql.ViewDef{
		"v": {Name: "v", SQL: "SELECT a, b FROM t WHERE a > 1", Columns: []string{"a", "b"}, Types: []string{"integer", "text"}, Reads: []string{"t"}},
		"w": {Name: "w", SQL: "SELECT count(*) FROM v", Columns: []string{"count"}, Types: []string{"bigint"}, Reads: []string{"v"}},
	}
}

// A view catalog record decodes to what was encoded; any flipped byte,
// a truncation, a record stored under another version, a bad body is
// ErrCorruptView (errkind.Corrupt) naming the file, never a panic.
func TestViewRecordRoundTripAndCorruption(t *testing.T) {
	b, err := encodeViews(3, sampleViews())
	require.NoError(t, err)
	got, err := decodeViews("p", 3, b)
	require.NoError(t, err)
	require.Equal(t, sampleViews(), got)

	_, err = decodeViews(".views/x", 4, b)
	require.ErrorIs(t, err, ErrCorruptView, "stored as another version")
	require.ErrorContains(t, err, ".views/x")
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0x40
		_, err := decodeViews("p", 3, c)
		require.ErrorIs(t, err, ErrCorruptView, "byte %d flipped", i)
		require.True(t, errors.Is(err, errkind.Corrupt))
	}
	for n := 0; n < len(b); n++ {
		_, err := decodeViews("p", 3, b[:n])
		require.ErrorIs(t, err, ErrCorruptView, "truncated to %d", n)
	}
	// A well-framed record whose body breaks the rules.
	for _, body := range []string{
		`{"seq":3,"views":[{"name":"V","sql":"SELECT 1","columns":["a"],"types":["integer"]}]}`,
		`{"seq":3,"views":[{"name":"v","sql":"","columns":["a"],"types":["integer"]}]}`,
		`{"seq":3,"views":[{"name":"v","sql":"SELECT 1","columns":["a"],"types":[]}]}`,
		`{"seq":3,"views":[{"name":"v","sql":"SELECT 1","columns":["a"],"types":["integer"]},{"name":"v","sql":"SELECT 1","columns":["a"],"types":["integer"]}]}`,
		`{"seq":3,"views":[],"extra":1}`,
		`{"seq":3,"views":[]} {}`,
	} {
		_, err := decodeViews("p", 3, frame([]byte(body)))
		require.ErrorIs(t, err, ErrCorruptView, body)
	}
}

// frame seals body as encodeViews does.
func frame(body []byte) []byte {
	out := append([]byte(viewMagic), 0, 0, 0, 0, 0, 0, 0, 0)
	binary.LittleEndian.PutUint16(out[4:], viewVersion)
	binary.LittleEndian.PutUint32(out[8:], uint32(len(body)))
	out = append(out, body...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crc32.MakeTable(crc32.Castagnoli)))
}

func viewSeeds(t testing.TB) [][]byte {
	b, err := encodeViews(1, sampleViews())
	require.NoError(t, err)
	empty, err := encodeViews(7, map[string]*sql.ViewDef{})
	require.NoError(t, err)
	return [][]byte{b, empty, b[:20], frame([]byte(`{"seq":1,"views":null}`)), frame([]byte(`[]`))}
}

// TestWriteViewRecordCorpus regenerates testdata/fuzz/FuzzDecodeViews.
func TestWriteViewRecordCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzDecodeViews", viewSeeds(t))
}

// FuzzDecodeViews: any bytes decode to a catalog whose every view is
// whole, or to ErrCorruptView; a decoded catalog encodes again to a
// record that decodes to the same views.
func FuzzDecodeViews(f *testing.F) {
	for _, s := range viewSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		views, err := decodeViews("p", 1, b)
		if err != nil {
			if !errors.Is(err, ErrCorruptView) {
				t.Fatalf("not ErrCorruptView: %v", err)
			}
			return
		}
		for n, v := range views {
			if n != v.Name || v.SQL == "" || len(v.Columns) == 0 || len(v.Columns) != len(v.Types) {
				t.Fatalf("half a view: %+v", v)
			}
		}
		again, err := encodeViews(1, views)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeViews("p", 1, again)
		if err != nil {
			t.Fatal(err)
		}
		if len(back) != len(views) {
			t.Fatalf("%d views, then %d", len(views), len(back))
		}
	})
}
