package server

import (
	"context"
	"errors"
	"log/slog"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// codeOf is the one mapping of stablerow's failure kinds to gRPC codes:
// a kind is a promise about what the client can do next, and so is a code.
func codeOf(err error) codes.Code {
	switch {
	case errors.Is(err, context.Canceled):
		return codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded
	case errors.Is(err, memlimit.ErrResourceExhausted):
		// Over the statement's memory limit (serve -memory-limit): the
		// client may retry later or with a smaller query, not with other
		// arguments, so not OutOfRange, its kind.
		return codes.ResourceExhausted
	}
	switch errkind.Of(err) {
	case errkind.Corrupt:
		return codes.DataLoss
	case errkind.Conflict:
		return codes.Aborted
	case errkind.OutOfRange:
		return codes.OutOfRange
	case errkind.InvalidArgument:
		return codes.InvalidArgument
	case errkind.NotFound:
		return codes.NotFound
	case errkind.Unsupported:
		return codes.Unimplemented
	case errkind.PermissionDenied:
		return codes.PermissionDenied
	case errkind.Unavailable:
		return codes.Unavailable
	case errkind.Internal:
		return codes.Internal
	}
	return codes.Unknown
}

// statusOf turns an engine error into the gRPC status a client gets. A
// status already made (by this package or grpc) passes as it is. The
// message is the error's own (bad SQL keeps its line and column); an
// internal error's details (the panic and its stack) go to the log, never
// to the client.
func (s *Server) statusOf(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	var ie *engine.InternalError
	if errors.As(err, &ie) {
		s.log.Error("internal error", slog.String("err", err.Error()), slog.String("debug", ie.Debug()))
	}
	return status.Error(codeOf(err), err.Error())
}
