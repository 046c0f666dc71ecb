package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIRemoteNeverLocal: every command that takes a database or table
// location sends an s3:// one to S3 (here an endpoint where nothing
// listens, so it fails) or refuses it as malformed; none of them creates
// or reads a local "s3:" directory. sql -create and demo used to make
// ./s3:/bucket/db and run there.
func TestCLIRemoteNeverLocal(t *testing.T) {
	cwd := t.TempDir()
	none := filepath.Join(t.TempDir(), "no-such-file")
	env := append(os.Environ(), "STABLEROW_DEBUG=", "AWS_ENDPOINT_URL=http://127.0.0.1:1", "AWS_ACCESS_KEY_ID=x",
		"AWS_SECRET_ACCESS_KEY=x", "AWS_REGION=us-east-1", "AWS_CONFIG_FILE="+none, "AWS_SHARED_CREDENTIALS_FILE="+none,
		"AWS_EC2_METADATA_DISABLED=true", "AWS_PROFILE=", "AWS_ENDPOINT_URL_S3=", "AWS_CA_BUNDLE=")
	// A local directory that an s3 location would name if it fell back to
	// a path: it must stay untouched, and never be read as the database.
	decoy := filepath.Join(cwd, "s3:", "stablerow-none", "db")
	if err := os.MkdirAll(decoy, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, loc := range []string{"s3://stablerow-none/db", "s3:/stablerow-none/db"} {
		for _, args := range [][]string{
			{"sql", "-create", "-d", loc, "-e", "CREATE TABLE t (k BIGINT)"},
			{"sql", "-d", loc, "-e", "SELECT 1"},
			{"substrait", "-d", loc, "-emit", "SELECT 1"},
			{"vacuum", "-d", loc},
			{"inspect", loc},
			{"inspect", loc + "/t"},
			{"demo", "-d", loc, "-rows", "1000", "-ids", "10"},
		} {
			cmd := exec.Command(bin, args...)
			cmd.Dir, cmd.Env = cwd, env
			var errb bytes.Buffer
			cmd.Stderr = &errb
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() == 0 {
				t.Errorf("stablerow %s: %v, want a failure", strings.Join(args, " "), err)
			}
			if strings.Contains(errb.String(), "no such file or directory") || strings.Contains(errb.String(), "holds no table") {
				t.Errorf("stablerow %s looked at the local file system: %s", strings.Join(args, " "), errb.String())
			}
		}
	}
	ents, err := os.ReadDir(decoy)
	if err != nil || len(ents) != 0 {
		t.Fatalf("the local decoy %s was touched: %v %v", decoy, ents, err)
	}
	top, _ := os.ReadDir(cwd)
	if len(top) != 1 {
		t.Fatalf("the working directory gained entries: %v", top)
	}
}

// TestCLIStoreUnreachable: a database on an S3 endpoint that is down is an
// I/O error, exit status 74, whose message names the endpoint and the
// operation; it was an internal error (exit 70, "run with -debug").
func TestCLIStoreUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ep := "http://" + l.Addr().String()
	l.Close()
	none := filepath.Join(t.TempDir(), "no-such-file")
	env := append(os.Environ(), "STABLEROW_DEBUG=", "AWS_ENDPOINT_URL_S3="+ep, "AWS_ACCESS_KEY_ID=x",
		"AWS_SECRET_ACCESS_KEY=x", "AWS_REGION=us-east-1", "AWS_CONFIG_FILE="+none, "AWS_SHARED_CREDENTIALS_FILE="+none,
		"AWS_EC2_METADATA_DISABLED=true", "AWS_PROFILE=", "AWS_ENDPOINT_URL=", "AWS_CA_BUNDLE=", "AWS_MAX_ATTEMPTS=2")
	for _, args := range [][]string{
		{"sql", "-d", "s3://stablerow-none/db", "-e", "SELECT 1"},
		{"vacuum", "-d", "s3://stablerow-none/db"},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = t.TempDir(), env
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 74 {
			t.Fatalf("stablerow %s: %v, want exit status 74; stderr: %s", strings.Join(args, " "), err, errb.String())
		}
		msg := errb.String()
		if !strings.Contains(msg, ep) || !strings.Contains(msg, "head bucket") || !strings.Contains(msg, "I/O error") {
			t.Fatalf("stablerow %s: the message names neither the endpoint %s nor the operation: %s", strings.Join(args, " "), ep, msg)
		}
	}
}
