package s3store

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store"
)

var (
	// ErrRequest reports an S3 request that failed for a reason other than
	// the object's absence: access denied, a server error that outlived
	// the retries, a network failure. The SDK's error is wrapped too.
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
	// ErrNoBucket reports a bucket that does not exist.
	ErrNoBucket = errkind.New(errkind.NotFound, "s3store: no such bucket")
)

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
func mapErr(op, p string, err error) error {
	switch {
	case code(err) == "NoSuchBucket":
		return fmt.Errorf("%w: %s %q: %w", ErrNoBucket, op, p, err)
	case status(err) == http.StatusNotFound || code(err) == "NoSuchKey" || code(err) == "NotFound":
		return fmt.Errorf("%w: %q", store.ErrNotFound, p)
	case status(err) == http.StatusRequestedRangeNotSatisfiable || code(err) == "InvalidRange":
		return fmt.Errorf("%w: %s %q: %w", store.ErrInvalidArgument, op, p, err)
	}
	return fmt.Errorf("%w: %s %q: %w", ErrRequest, op, p, err)
}
