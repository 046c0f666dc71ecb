package taskjson_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stablerow/stablerow/internal/taskjson"
)

var errBad = errors.New("bad task")

type task struct {
	Format int    `json:"format"`
	Plan   string `json:"plan"`
}

func (k *task) validate() error {
	if k.Format != 1 {
		return errBad
	}
	return nil
}

func TestDecode(t *testing.T) {
	k, err := taskjson.Decode([]byte(`{"format":1,"plan":"p"}`), errBad, (*task).validate)
	if err != nil || k.Format != 1 || k.Plan != "p" {
		t.Fatalf("got %+v, %v", k, err)
	}
	for _, in := range []string{
		``,                                  // no value
		`{"format":1,"plan":"p","x":2}`,     // unknown field
		`{"format":1,"plan":"p"} {}`,        // trailing value
		`{"format":1,"plan":7}`,             // wrong type
		`{"format":2,"plan":"p"}`,           // refused by validate
		`[{"format":1,"plan":"p"}]`,         // not an object
		`{"format":1,"plan":"p"`,            // truncated
		`{"format":1,"plan":"p","plan":"q"`, // truncated after a repeat
	} {
		if k, err := taskjson.Decode([]byte(in), errBad, (*task).validate); !errors.Is(err, errBad) || k != nil {
			t.Errorf("%q: got %+v, %v; want errBad", in, k, err)
		}
	}
	// Without a validator only the JSON is checked.
	if _, err := taskjson.Decode[task]([]byte(`{"format":2}`), errBad, nil); err != nil {
		t.Errorf("nil validate: %v", err)
	}
}

// FuzzDecode: any input either fails with the sentinel or decodes to a
// value that encoding/json writes back to an input decoding to the same
// value (what the plan / task / result decoders rely on).
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"format":1,"plan":"p"}`))
	f.Add([]byte(`{"format":1,"plan":"p"} {}`))
	f.Add([]byte(`{"format":1,"plan":"p","x":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := taskjson.Decode(b, errBad, (*task).validate)
		if err != nil {
			if !errors.Is(err, errBad) || k != nil {
				t.Fatalf("got %+v, %v", k, err)
			}
			return
		}
		again, err := taskjson.Decode(mustJSON(t, k), errBad, (*task).validate)
		if err != nil || *again != *k {
			t.Fatalf("re-encoded %+v decodes to %+v, %v", k, again, err)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
