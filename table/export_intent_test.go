package table

import (
	"strings"
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

// SetIntentClockSkewForTest changes how long after its expiry Cleanup
// still treats another host's intent as live.
func SetIntentClockSkewForTest(d time.Duration) (restore func()) {
	old := intentClockSkew
	intentClockSkew = d
	return func() { intentClockSkew = old }
}

// IntentElsewhereForTest is IntentForTest for a writer on another host:
// Cleanup can judge it only by its expiry.
func IntentElsewhereForTest(files, prefixes []string, expires time.Time) (string, []byte) {
	r := intentRecord{Writer: NewID(), Purpose: "test", Host: "elsewhere.invalid", BootID: "another-boot", PID: 1,
		Created: time.Now().UnixNano(), Expires: expires.UnixNano(), Files: files, Prefixes: prefixes}
	return intentPath(r.Writer), r.marshal()
}

// RevokedPathForTest is where Cleanup marks the intent at intentPath revoked.
func RevokedPathForTest(intentPath string) string {
	return revokedPath(strings.TrimSuffix(strings.TrimPrefix(intentPath, intentsDir), ".intent"))
}

// SetIntentHolderForTest makes the intents begun from now on name another
// host as their holder, as a writer on another machine sharing the store
// (this process's Cleanup then judges them by their expiry alone).
func SetIntentHolderForTest(host string) (restore func()) {
	old := intentHostForTest
	intentHostForTest = host
	return func() { intentHostForTest = old }
}
