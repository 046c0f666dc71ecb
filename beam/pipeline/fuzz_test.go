package pipeline

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stablerow/stablerow/access"
)

// FuzzDecodeTakeTask: a task body off the wire decodes to a task that
// encodes back to an equal one, or fails with access.ErrTakeTask; never a
// panic.
func FuzzDecodeTakeTask(f *testing.F) {
	f.Add([]byte(`{"format":1,"version":3,"fragment":2,"ords":[0,5],"offsets":[1,9]}`))
	f.Add([]byte(`{"format":1,"version":3,"fragment":2,"ords":[0],"offsets":[1,9],"extra":1}`))
	f.Add([]byte(`{"format":1,"ords":[-1]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := decodeTakeTask(b)
		if err != nil {
			if !errors.Is(err, access.ErrTakeTask) {
				t.Fatalf("error %v is not ErrTakeTask", err)
			}
			return
		}
		again, err := json.Marshal(k)
		if err != nil {
			t.Fatal(err)
		}
		k2, err := decodeTakeTask(again)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", again, err)
		}
		again2, _ := json.Marshal(k2)
		if string(again) != string(again2) {
			t.Fatalf("round trip changed %s to %s", again, again2)
		}
	})
}
