package lance

import "github.com/stablerow/stablerow/errkind"

var (
	// ErrNotInstalled: node or the npm dependency is missing.
	ErrNotInstalled = errkind.New(errkind.NotFound, "lance: LanceDB peer not installed (need node and `cd bench/lance && npm ci`)")
	// ErrPeer: the Node side reported an error.
	ErrPeer = errkind.New(errkind.Internal, "lance: LanceDB peer failed")
	// ErrProtocol: a reply or answer file is malformed.
	ErrProtocol = errkind.New(errkind.Corrupt, "lance: malformed reply from the LanceDB peer")
)
