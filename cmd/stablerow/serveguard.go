//go:build stablerow_full

package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/stablerow/stablerow/server"
)

// guardFlags registers serve's authentication and file-access hardening
// flags: -token-ttl, -auth-fail-delay, -auth-fail-max-delay and
// -files-allow-hardlinks. The function it returns, called after parsing,
// sets them in opt and auth (a duration that is not positive is
// errServeArgs).
func guardFlags(fs *flag.FlagSet) func(opt *server.Options, auth *server.Auth) error {
	ttl := fs.Duration("token-ttl", 12*time.Hour, "how long a bearer token issued for -user's password stays valid; a client then logs in again")
	delay := fs.Duration("auth-fail-delay", 250*time.Millisecond, "after a failed login or a call with a bad or expired bearer token, refuse the client's address (and the user name) for this long, doubled at each further failure (a success clears it)")
	maxDelay := fs.Duration("auth-fail-max-delay", time.Minute, "the most -auth-fail-delay doubles to")
	hardlinks := fs.Bool("files-allow-hardlinks", false, "let COPY read and write files under -files that have more than one hard link (refused by default: such a link may lead to a file outside the directory)")
	return func(opt *server.Options, auth *server.Auth) error {
		for _, d := range []struct {
			name string
			v    time.Duration
		}{{"-token-ttl", *ttl}, {"-auth-fail-delay", *delay}, {"-auth-fail-max-delay", *maxDelay}} {
			if d.v <= 0 {
				return fmt.Errorf("%w: %s %v is not positive", errServeArgs, d.name, d.v)
			}
		}
		if *maxDelay < *delay {
			return fmt.Errorf("%w: -auth-fail-max-delay %v is less than -auth-fail-delay %v", errServeArgs, *maxDelay, *delay)
		}
		auth.TokenTTL, auth.FailDelay, auth.FailMaxDelay = *ttl, *delay, *maxDelay
		opt.FilesAllowHardLinks = *hardlinks
		return nil
	}
}
