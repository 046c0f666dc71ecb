package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Auth configures authentication. A client authenticates with a user name
// and password (HTTP Basic in a Flight Handshake, which returns a bearer
// token for the calls that follow: what ADBC's username/password options
// do) or with a bearer token it was given (ADBC's authorization_header
// option "Bearer TOKEN").
type Auth struct {
	Users  map[string]string // user name -> password
	Tokens []string          // static bearer tokens
	// TokenTTL is how long a token issued by a Handshake stays valid
	// (0: 12 hours; the CLI's -token-ttl).
	TokenTTL time.Duration
	// FailDelay is how long a client address and a user name are refused
	// after a failed Handshake (an address also after a call with a bad or
	// expired bearer token); it doubles with each further failure up
	// to FailMaxDelay, and a success clears it (0: 250 ms and 1 minute;
	// the CLI's -auth-fail-delay, -auth-fail-max-delay). See authlimit.go.
	FailDelay, FailMaxDelay time.Duration
}

// enabled reports whether any credential is configured.
func (a *Auth) enabled() bool { return a != nil && (len(a.Users) > 0 || len(a.Tokens) > 0) }

// validator is the flight.BasicAuthValidator of an Auth: it checks
// passwords and static tokens in constant time and remembers the tokens it
// issued, each until it expires.
//
// Secrets are compared as HMACs under a key drawn at start: equal-length
// digests, so subtle.ConstantTimeCompare cannot return early on a length
// mismatch and tell an attacker a secret's length; every user and every
// static token is compared, so neither does a map lookup's timing tell
// which user names exist. Issued tokens are kept by digest only.
type validator struct {
	ttl    time.Duration
	key    []byte
	users  []userDigest
	tokens [][]byte
	mu     sync.Mutex
	issued map[[sha256.Size]byte]issuedToken
}

type userDigest struct {
	name     string
	user     []byte // digest of the name
	password []byte // digest of the password
}

type issuedToken struct {
	user    string
	expires time.Time
}

func newValidator(a Auth) *validator {
	if a.TokenTTL <= 0 {
		a.TokenTTL = 12 * time.Hour
	}
	v := &validator{ttl: a.TokenTTL, key: make([]byte, 32), issued: map[[sha256.Size]byte]issuedToken{}}
	if _, err := rand.Read(v.key); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	for name, pw := range a.Users {
		v.users = append(v.users, userDigest{name: name, user: v.mac(name), password: v.mac(pw)})
	}
	for _, t := range a.Tokens {
		v.tokens = append(v.tokens, v.mac(t))
	}
	return v
}

// mac is the digest secrets are compared by.
func (v *validator) mac(s string) []byte {
	m := hmac.New(sha256.New, v.key)
	m.Write([]byte(s))
	return m.Sum(nil)
}

var errBadCredentials = status.Error(codes.Unauthenticated, "invalid user name or password")

// Validate checks a user's password and issues a bearer token.
func (v *validator) Validate(user, password string) (string, error) {
	ud, pd := v.mac(user), v.mac(password)
	match, name := 0, ""
	for _, u := range v.users {
		ok := subtle.ConstantTimeCompare(ud, u.user) & subtle.ConstantTimeCompare(pd, u.password)
		if ok == 1 {
			name = u.name
		}
		match |= ok
	}
	if match != 1 {
		return "", errBadCredentials
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", status.Errorf(codes.Internal, "issue token: %v", err)
	}
	tok := base64.RawURLEncoding.EncodeToString(b[:])
	now := time.Now()
	v.mu.Lock()
	defer v.mu.Unlock()
	for t, it := range v.issued { // drop expired tokens as new ones come
		if now.After(it.expires) {
			delete(v.issued, t)
		}
	}
	v.issued[digestKey(v.mac(tok))] = issuedToken{user: name, expires: now.Add(v.ttl)}
	return tok, nil
}

// digestKey is a digest as the issued tokens' map key.
func digestKey(d []byte) (k [sha256.Size]byte) {
	copy(k[:], d)
	return k
}

// IsValid checks a bearer token; the identity is the user it was issued
// to, or "token" for a static one.
func (v *validator) IsValid(token string) (any, error) {
	d := v.mac(token)
	v.mu.Lock()
	it, ok := v.issued[digestKey(d)]
	v.mu.Unlock()
	if ok && time.Now().Before(it.expires) {
		return it.user, nil
	}
	match := 0
	for _, t := range v.tokens {
		match |= subtle.ConstantTimeCompare(t, d)
	}
	if match == 1 {
		return "token", nil
	}
	return nil, status.Error(codes.Unauthenticated, "invalid or expired bearer token")
}
