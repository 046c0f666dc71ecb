package store

import (
	"fmt"
	"strings"
)

// URI is a parsed store location: a local directory or an object-store
// prefix. It is the one place that decides whether a location string names
// a local path, so that an "s3://..." location can never fall back to a
// directory named "s3:".
type URI struct {
	// Scheme is "file" for a local path, else the URI scheme ("s3").
	Scheme string
	// Path is the local directory (Scheme "file" only).
	Path string
	// Bucket and Prefix locate an object-store table (Scheme "s3"). Prefix
	// is clean: no leading or trailing slash, no "." or ".." segments; it
	// may be empty (the bucket's root).
	Bucket, Prefix string
}

// IsRemoteURI reports whether loc carries a URI scheme other than file:,
// i.e. whether it must not be treated as a local path. A malformed remote
// location ("s3:", "s3:/x", "s3://") is remote too: it is refused by
// ParseURI, never opened as a directory.
func IsRemoteURI(loc string) bool {
	s, ok := scheme(loc)
	return ok && s != "file"
}

// scheme returns the RFC 3986 scheme of loc, lower-cased. A one-letter
// scheme is not a scheme: "C:" is a Windows drive.
func scheme(loc string) (string, bool) {
	i := strings.IndexByte(loc, ':')
	if i < 2 {
		return "", false
	}
	for j, c := range loc[:i] {
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !(alpha || j > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", false
		}
	}
	return strings.ToLower(loc[:i]), true
}

// ParseURI parses a store location: a plain path or file:///path (local),
// or s3://bucket[/prefix]. Anything else, and any malformed s3 location,
// is ErrInvalidArgument.
func ParseURI(loc string) (URI, error) {
	s, ok := scheme(loc)
	if !ok {
		if loc == "" {
			return URI{}, fmt.Errorf("%w: empty store location", ErrInvalidArgument)
		}
		return URI{Scheme: "file", Path: loc}, nil
	}
	rest, ok := strings.CutPrefix(loc[len(s)+1:], "//")
	if !ok {
		return URI{}, fmt.Errorf("%w: store location %q: want %s://...", ErrInvalidArgument, loc, s)
	}
	switch s {
	case "file":
		if !strings.HasPrefix(rest, "/") {
			return URI{}, fmt.Errorf("%w: store location %q: want file:///absolute/path", ErrInvalidArgument, loc)
		}
		return URI{Scheme: "file", Path: rest}, nil
	case "s3":
		bucket, prefix, _ := strings.Cut(rest, "/")
		if err := checkBucket(bucket); err != nil {
			return URI{}, fmt.Errorf("%w: store location %q: %s", ErrInvalidArgument, loc, err)
		}
		if strings.ContainsAny(prefix, "?#") {
			return URI{}, fmt.Errorf("%w: store location %q: query and fragment are not allowed", ErrInvalidArgument, loc)
		}
		prefix = strings.Trim(prefix, "/")
		if prefix != "" {
			c, err := cleanPath(prefix)
			if err != nil || c != prefix {
				return URI{}, fmt.Errorf("%w: store location %q: bad prefix %q", ErrInvalidArgument, loc, prefix)
			}
		}
		return URI{Scheme: "s3", Bucket: bucket, Prefix: prefix}, nil
	default:
		return URI{}, fmt.Errorf("%w: store location %q: unknown scheme %q (want a path, file:// or s3://)", ErrInvalidArgument, loc, s)
	}
}

// checkBucket applies S3's bucket naming rules (3-63 characters of
// lower-case letters, digits, '.' and '-', starting and ending with a
// letter or digit), so a typo fails here and not as an opaque HTTP error.
func checkBucket(b string) error {
	if b == "" {
		return fmt.Errorf("no bucket")
	}
	if len(b) < 3 || len(b) > 63 {
		return fmt.Errorf("bucket %q: want 3 to 63 characters", b)
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || (c == '.' || c == '-') && i > 0 && i < len(b)-1
		if !ok {
			return fmt.Errorf("bucket %q: bad character %q at %d", b, c, i)
		}
	}
	return nil
}

// CleanPath validates a store path (relative, slash-separated, no "..") and
// returns its clean form. Stores outside this package use it so every
// backend accepts exactly the same paths.
func CleanPath(p string) (string, error) { return cleanPath(p) }
