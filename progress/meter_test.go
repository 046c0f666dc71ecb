package progress

import (
	"context"
	"sync"
	"testing"
)

// Concurrent producers add up exactly, a context without a Meter gives
// nil, and a nil Meter ignores every call.
func TestMeter(t *testing.T) {
	if From(context.Background()) != nil {
		t.Fatal("a bare context has a meter")
	}
	var nilMeter *Meter
	nilMeter.WillRead(1)
	nilMeter.Read(1)
	nilMeter.Wrote(1)
	if c := nilMeter.Counts(); c != (Counts{}) {
		t.Fatalf("nil meter counted %+v", c)
	}
	m := &Meter{}
	ctx := With(context.Background(), m)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := From(ctx)
			p.WillRead(1000)
			for range 1000 {
				p.Read(1)
				p.Wrote(2)
			}
		}()
	}
	wg.Wait()
	if c := m.Counts(); c != (Counts{ToRead: 8000, Read: 8000, Written: 16000}) {
		t.Fatalf("counts %+v", c)
	}
}
