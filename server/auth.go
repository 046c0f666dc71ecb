package server

import (
	"crypto/rand"
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
	// (0: 12 hours).
	TokenTTL time.Duration
}

// enabled reports whether any credential is configured.
func (a *Auth) enabled() bool { return a != nil && (len(a.Users) > 0 || len(a.Tokens) > 0) }

// validator is the flight.BasicAuthValidator of an Auth: it checks
// passwords and static tokens in constant time and remembers the tokens it
// issued, each until it expires.
type validator struct {
	auth   Auth
	mu     sync.Mutex
	issued map[string]issuedToken
}

type issuedToken struct {
	user    string
	expires time.Time
}

func newValidator(a Auth) *validator {
	if a.TokenTTL <= 0 {
		a.TokenTTL = 12 * time.Hour
	}
	return &validator{auth: a, issued: map[string]issuedToken{}}
}

var errBadCredentials = status.Error(codes.Unauthenticated, "invalid user name or password")

// Validate checks a user's password and issues a bearer token.
func (v *validator) Validate(user, password string) (string, error) {
	want, ok := v.auth.Users[user]
	if !ok {
		want = "\x00no such user" // compare anyway: no timing difference
	}
	if subtle.ConstantTimeCompare([]byte(want), []byte(password)) != 1 || !ok {
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
	v.issued[tok] = issuedToken{user: user, expires: now.Add(v.auth.TokenTTL)}
	return tok, nil
}

// IsValid checks a bearer token; the identity is the user it was issued
// to, or "token" for a static one.
func (v *validator) IsValid(token string) (any, error) {
	v.mu.Lock()
	it, ok := v.issued[token]
	v.mu.Unlock()
	if ok && time.Now().Before(it.expires) {
		return it.user, nil
	}
	match := 0
	for _, t := range v.auth.Tokens {
		match |= subtle.ConstantTimeCompare([]byte(t), []byte(token))
	}
	if match == 1 {
		return "token", nil
	}
	return nil, status.Error(codes.Unauthenticated, "invalid or expired bearer token")
}
