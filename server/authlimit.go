package server

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Defaults of Auth's password-guessing limits.
const (
	defaultFailDelay    = 250 * time.Millisecond
	defaultFailMaxDelay = time.Minute
	// failForget: an address or user with no failure for this long (past
	// its last delay) starts again from nothing.
	failForget = 15 * time.Minute
	// failTableSize bounds each table (addresses, users): ~200 bytes an
	// entry, so the two hold well under 2 MB however many names or
	// addresses an attacker rotates through.
	failTableSize = 4096
	// maxUserKey: a longer user name is tracked by its SHA-256.
	maxUserKey = 128
)

// authLimiter slows password guessing. Each failed Handshake (a wrong
// user name or password, or malformed Basic credentials) from a client
// address, and for a user name, doubles the time that address and that
// user are refused, from Auth.FailDelay up to Auth.FailMaxDelay; while
// either is refused, a Handshake is answered ResourceExhausted at once,
// without looking at the password, so a correct one waits too. The
// answer carries the wait as a gRPC RetryInfo detail (and in its
// message). A successful login clears its address and its user.
//
// A call presenting a bearer token (any call but Handshake) is an
// authentication too: a token that is not valid (unknown, or issued and
// expired) is a failure of the client's address, counted, delayed and
// logged as a wrong password is (there is no user name to count it
// against), and while the address is refused its calls with a token are
// answered ResourceExhausted without the token being looked at, a valid
// one too: otherwise the answers to a held-back address would still tell
// a guessed token from a wrong one at full speed. A valid token clears
// nothing (only a password login does), but gives back the attempt it
// reserved, so a client with a good token is not held to one call per
// delay by its own calls. The cost of this: clients behind one address
// (NAT, or every local client on 127.0.0.1) share its delay, for bearer
// calls as for logins.
//
// An address is the client's IP (an IPv6 client's /64, the block one
// host usually holds). Both tables are bounded (failTableSize): when one
// is full, the entry whose last failure is oldest goes, so rotating
// through names or addresses costs the attacker that many failures per
// eviction and never grows memory. Entries are forgotten failForget after
// their delay ended.
type authLimiter struct {
	base, max time.Duration
	now       func() time.Time // time.Now; a fixed clock in tests
	log       *slog.Logger
	// token checks a bearer token (validator.IsValid); nil: calls with
	// tokens are not limited (tests of the tables alone).
	token func(string) error

	mu    sync.Mutex
	addrs failTable
	users failTable
}

func newAuthLimiter(a *Auth, v *validator, log *slog.Logger) *authLimiter {
	l := &authLimiter{base: a.FailDelay, max: a.FailMaxDelay, now: time.Now, log: log}
	if v != nil {
		l.token = func(tok string) error { _, err := v.IsValid(tok); return err }
	}
	if l.base <= 0 {
		l.base = defaultFailDelay
	}
	if l.max <= 0 {
		l.max = defaultFailMaxDelay
	}
	l.max = max(l.max, l.base)
	l.addrs.init(failTableSize)
	l.users.init(failTableSize)
	return l
}

// delay is the wait after n failures: base doubled n-1 times, at most max.
func (l *authLimiter) delay(n int) time.Duration {
	d := l.base
	for i := 1; i < n && d < l.max; i++ {
		d *= 2
	}
	return min(d, l.max)
}

// admit reports how long addr and user must still wait (0: go ahead).
// An address or user with failures that is admitted has its next
// attempt's delay reserved at once, so attempts made in parallel while
// its password is checked are refused rather than all checked.
func (l *authLimiter) admit(addr, user string) time.Duration {
	wait, _ := l.reserve(addr, user)
	return wait
}

// reservation is what admit reserved for an address: its entry's refusal
// before and after, so release can give it back if nothing moved it since.
type reservation struct {
	prev, until time.Time
}

// reserve is admit, also returning the address's reservation (zero when
// the address has no failures).
func (l *authLimiter) reserve(addr, user string) (time.Duration, reservation) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	ea, eu := l.addrs.get(addr, now), l.users.get(user, now)
	var wait time.Duration
	for _, e := range []*failEntry{ea, eu} {
		if e != nil && e.until.After(now) {
			wait = max(wait, e.until.Sub(now))
		}
	}
	if wait > 0 {
		for _, e := range []*failEntry{ea, eu} {
			if e != nil {
				e.refused++
			}
		}
		return wait, reservation{}
	}
	var r reservation
	for _, e := range []*failEntry{ea, eu} {
		if e != nil {
			if e == ea {
				r.prev = e.until
			}
			e.until = now.Add(l.delay(e.failures))
			if e == ea {
				r.until = e.until
			}
		}
	}
	return 0, r
}

// release gives back an address's reservation after a valid bearer token,
// unless a failure or another reservation has moved it since.
func (l *authLimiter) release(addr string, r reservation) {
	if r.until.IsZero() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.addrs.get(addr, l.now()); e != nil && e.until.Equal(r.until) {
		e.until = r.prev
	}
}

// failed records a failure of addr and user and returns how long both
// are now refused, the failures counted (the larger of the two) and the
// attempts refused since the previous failure.
func (l *authLimiter) failed(addr, user string) (wait time.Duration, failures, refused int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	for _, t := range []struct {
		tab *failTable
		key string
	}{{&l.addrs, addr}, {&l.users, user}} {
		if t.key == "" {
			continue
		}
		e := t.tab.add(t.key, now)
		e.failures++
		e.last = now
		d := l.delay(e.failures)
		e.until = now.Add(d)
		wait, failures, refused = max(wait, d), max(failures, e.failures), max(refused, e.refused)
		e.refused = 0
	}
	return wait, failures, refused
}

// succeeded clears addr and user.
func (l *authLimiter) succeeded(addr, user string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.addrs.remove(addr)
	l.users.remove(user)
}

// failTable is one bounded table of failure counts, most recent failure
// first. Callers hold authLimiter.mu.
type failTable struct {
	size  int
	m     map[string]*list.Element // of *failEntry
	order list.List                // front: most recent failure
}

type failEntry struct {
	key      string
	failures int
	last     time.Time // the last failure
	until    time.Time // refused until then
	refused  int       // attempts refused since the last failure
}

func (t *failTable) init(size int) {
	t.size = size
	t.m = make(map[string]*list.Element)
}

func (t *failTable) len() int { return len(t.m) }

// stale: no failure for failForget past the entry's delay.
func stale(e *failEntry, now time.Time) bool { return now.Sub(e.until) > failForget }

// get returns key's entry, nil if it has none (or only a stale one).
func (t *failTable) get(key string, now time.Time) *failEntry {
	el, ok := t.m[key]
	if !ok || key == "" {
		return nil
	}
	e := el.Value.(*failEntry)
	if stale(e, now) {
		t.order.Remove(el)
		delete(t.m, key)
		return nil
	}
	return e
}

// add returns key's entry, made if need be, moved to the front. A full
// table first drops its stale entries from the back, then its oldest.
func (t *failTable) add(key string, now time.Time) *failEntry {
	if e := t.get(key, now); e != nil {
		t.order.MoveToFront(t.m[key])
		return e
	}
	for len(t.m) >= t.size {
		back := t.order.Back()
		t.order.Remove(back)
		delete(t.m, back.Value.(*failEntry).key)
	}
	e := &failEntry{key: key}
	t.m[key] = t.order.PushFront(e)
	return e
}

func (t *failTable) remove(key string) {
	if el, ok := t.m[key]; ok {
		t.order.Remove(el)
		delete(t.m, key)
	}
}

// unary is the interceptor that applies the limiter to the bearer token
// of a unary call (bearer). It runs outside the Basic-auth middleware.
func (l *authLimiter) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := l.bearer(ctx); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

// stream is the interceptor that applies the limiter to Handshake, the
// one call that checks a password, and to the bearer token of every
// other streaming call (bearer). It runs outside the Basic-auth
// middleware, whose Unauthenticated answer to a Handshake is a failure.
func (l *authLimiter) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if !strings.HasSuffix(info.FullMethod, "/Handshake") {
		if err := l.bearer(ss.Context()); err != nil {
			return err
		}
		return handler(srv, ss)
	}
	ctx := ss.Context()
	addr, user := clientAddr(ctx), basicUser(ctx)
	ukey := userKey(user)
	if wait := l.admit(addr, ukey); wait > 0 {
		return retryStatus(codes.ResourceExhausted, fmt.Sprintf("too many failed authentications from this address or for this user: retry in %v", roundUp(wait)), wait)
	}
	err := handler(srv, ss)
	switch status.Code(err) {
	case codes.OK:
		l.succeeded(addr, ukey)
	case codes.Unauthenticated:
		wait, failures, refused := l.failed(addr, ukey)
		// Never the password; the user name as given (quoted by the
		// handler, cut short), which may be a password typed in the
		// wrong field: operators who mind can drop the attribute.
		l.log.Warn("authentication failed", "addr", addr, "user", logUser(user),
			"failures", failures, "refused_meanwhile", refused, "retry_after", roundUp(wait))
		return retryStatus(codes.Unauthenticated, status.Convert(err).Message()+fmt.Sprintf(" (retry in %v)", roundUp(wait)), wait)
	}
	return err
}

// bearer limits a call's bearer token: nil lets the call go on to the
// Basic-auth middleware, which checks the token again (a valid one) or
// refuses a call without one (not counted: it guessed nothing).
//
//	call with "Bearer TOKEN" --admitted--> token checked --valid--> reservation given back, go on
//	      |                                      |
//	      | address refused                      | not valid: the address's failure, logged
//	      v                                      v
//	ResourceExhausted (RetryInfo)          Unauthenticated (RetryInfo of the new delay)
func (l *authLimiter) bearer(ctx context.Context) error {
	tok, ok := bearerToken(ctx)
	if !ok || l.token == nil {
		return nil
	}
	addr := clientAddr(ctx)
	wait, r := l.reserve(addr, "")
	if wait > 0 {
		return retryStatus(codes.ResourceExhausted, fmt.Sprintf("too many failed authentications from this address: retry in %v", roundUp(wait)), wait)
	}
	err := l.token(tok)
	if err == nil {
		l.release(addr, r)
		return nil
	}
	wait, failures, refused := l.failed(addr, "")
	// Never the token, nor any part of it.
	l.log.Warn("authentication failed", "addr", addr, "credential", "bearer token",
		"failures", failures, "refused_meanwhile", refused, "retry_after", roundUp(wait))
	return retryStatus(codes.Unauthenticated, status.Convert(err).Message()+fmt.Sprintf(" (retry in %v)", roundUp(wait)), wait)
}

// bearerToken is the token of a call's "authorization: Bearer TOKEN",
// read as the Basic-auth middleware reads it.
func bearerToken(ctx context.Context) (string, bool) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return "", false
	}
	scheme, cred, _ := strings.Cut(strings.TrimSpace(vals[0]), " ")
	cred = strings.TrimLeft(cred, " ")
	if !strings.EqualFold(scheme, "Bearer") || cred == "" {
		return "", false
	}
	return cred, true
}

// RetryDelay is how long a status error from the server asks its client
// to wait before trying again (its RetryInfo detail: a login or a call
// with a token refused or failed while the address is held back); 0 if it
// carries none.
func RetryDelay(err error) time.Duration {
	for _, d := range status.Convert(err).Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			return ri.GetRetryDelay().AsDuration()
		}
	}
	return 0
}

// retryStatus is a status of code and msg with a RetryInfo detail of wait.
func retryStatus(code codes.Code, msg string, wait time.Duration) error {
	st := status.New(code, msg)
	if d, err := st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(wait)}); err == nil {
		st = d
	}
	return st.Err()
}

func roundUp(d time.Duration) time.Duration {
	return (d + time.Millisecond - 1).Truncate(time.Millisecond)
}

// clientAddr is the key of a client's address: its IP, or an IPv6
// client's /64.
func clientAddr(ctx context.Context) string {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return "unknown"
	}
	ta, ok := p.Addr.(*net.TCPAddr)
	if !ok {
		return p.Addr.String()
	}
	if ip4 := ta.IP.To4(); ip4 != nil {
		return ip4.String()
	}
	return (&net.IPNet{IP: ta.IP.Mask(net.CIDRMask(64, 128)), Mask: net.CIDRMask(64, 128)}).String()
}

// basicUser is the user name of a call's Basic credentials ("" if it has
// none or they do not decode), read as the Basic-auth middleware reads
// them.
func basicUser(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return ""
	}
	scheme, cred, _ := strings.Cut(strings.TrimSpace(vals[0]), " ")
	if !strings.EqualFold(scheme, "Basic") {
		return ""
	}
	cred = strings.TrimLeft(cred, " ")
	b, err := base64.RawStdEncoding.DecodeString(cred)
	if err != nil {
		if b, err = base64.StdEncoding.DecodeString(cred); err != nil {
			return ""
		}
	}
	user, _, _ := strings.Cut(string(b), ":")
	return user
}

// userKey bounds the memory of a user name in the table.
func userKey(user string) string {
	if len(user) <= maxUserKey {
		return user
	}
	h := sha256.Sum256([]byte(user))
	return "sha256:" + hex.EncodeToString(h[:])
}

// logUser cuts a user name for the log.
func logUser(user string) string {
	const n = 64
	if len(user) <= n {
		return user
	}
	return user[:n] + "..."
}
