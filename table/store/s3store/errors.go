package s3store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store"
)

var (
	// ErrRequest reports an S3 request that failed for a reason none of
	// the other errors covers (an answer this store does not expect). The
	// SDK's error is wrapped too.
	ErrRequest = errkind.New(errkind.Internal, "s3store: request failed")
	// ErrChanged reports an object replaced since a Reader opened it (its
	// ETag no longer matches): the reader would otherwise mix two versions.
	ErrChanged = errkind.New(errkind.Conflict, "s3store: object changed since it was opened")
	// ErrShortRead reports a ranged GET that returned fewer or more bytes
	// than asked and than the object's size allows.
	ErrShortRead = errkind.New(errkind.Corrupt, "s3store: ranged read returned the wrong length")
	// ErrGhost reports an object the server says exists (a conditional
	// write is refused) but cannot serve: the remains of a write the server
	// did not complete (a crash mid-PUT). Every later write of that path
	// collides with it; it takes an operator to delete it.
	ErrGhost = errkind.New(errkind.Corrupt, "s3store: the server holds an unreadable object")
	// ErrUnavailable reports an object store that could not be reached
	// (connection refused, DNS, timeouts) or kept answering 5xx or
	// throttling through every retry. The message names the endpoint and
	// the operation; the SDK's error is wrapped too.
	ErrUnavailable = errkind.New(errkind.Unavailable, "s3store: object store unavailable")
	// ErrAccessDenied reports a request the server refused for its
	// credentials or policy (401, 403).
	ErrAccessDenied = errkind.New(errkind.PermissionDenied, "s3store: access denied")
	// ErrNoBucket reports a bucket that does not exist.
	ErrNoBucket = errkind.New(errkind.NotFound, "s3store: no such bucket")
)

// unavailable reports whether err says the server could not be reached or
// was failing (5xx, throttling) rather than refusing this request: the
// SDK's retryer has already spent its attempts on it.
func unavailable(err error) bool {
	var send *smithyhttp.RequestSendError
	var ne net.Error
	switch {
	case errors.As(err, &send), errors.As(err, &ne):
		return true
	case status(err) >= 500 || status(err) == http.StatusTooManyRequests:
		return true
	}
	switch code(err) {
	case "SlowDown", "ServiceUnavailable", "RequestTimeout", "InternalError", "Throttling", "ThrottlingException":
		return true
	}
	return false
}

// status returns the HTTP status of an SDK error, or 0.
func status(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// code returns the S3 error code of an SDK error ("NoSuchKey"), or "".
func code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// mapErr turns an SDK error of operation op on path p into the store's
// typed errors. Context cancellation stays errors.Is-able.
func (s *Store) mapErr(op, p string, err error) error {
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("s3store: %s %q at %s: %w", op, p, s.endpoint, err)
	case unavailable(err):
		return fmt.Errorf("%w: %s %q at %s: %w", ErrUnavailable, op, p, s.endpoint, err)
	case status(err) == http.StatusForbidden || status(err) == http.StatusUnauthorized || code(err) == "AccessDenied":
		return fmt.Errorf("%w: %s %q at %s: %w", ErrAccessDenied, op, p, s.endpoint, err)
	case code(err) == "NoSuchBucket":
		return fmt.Errorf("%w: %s %q: %w", ErrNoBucket, op, p, err)
	case status(err) == http.StatusNotFound || code(err) == "NoSuchKey" || code(err) == "NotFound":
		return fmt.Errorf("%w: %q", store.ErrNotFound, p)
	case status(err) == http.StatusRequestedRangeNotSatisfiable || code(err) == "InvalidRange":
		return fmt.Errorf("%w: %s %q: %w", store.ErrInvalidArgument, op, p, err)
	}
	return fmt.Errorf("%w: %s %q: %w", ErrRequest, op, p, err)
}
