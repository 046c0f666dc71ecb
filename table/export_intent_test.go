package table

import (
	"time"
)

// SetIntentTTLForTest changes the TTL of intents begun from now on.
func SetIntentTTLForTest(d time.Duration) (restore func()) {
	old := intentTTL
	intentTTL = d
	return func() { intentTTL = old }
}

// IntentForTest is an intent record as a writer would put it, for tests
// that plant one: its store path and bytes. pid 0 is this process.
func IntentForTest(files, prefixes []string, expires time.Time, pid uint64) (string, []byte) {
	r := intentRecord{Writer: NewID(), Purpose: "test", Created: time.Now().UnixNano(), Expires: expires.UnixNano(), Files: files, Prefixes: prefixes}
	r.Host, r.BootID, r.PID, r.Start = holder()
	if pid != 0 {
		r.PID, r.Start = pid, 0
		if s, ok := processStart(pid); ok {
			r.Start = s
		}
	}
	return intentPath(r.Writer), r.marshal()
}
