package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stablerow/stablerow/engine"
	_ "github.com/stablerow/stablerow/engine/s3db" // engine opens s3:// (engine/remote.go)
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store/s3store"
)

// deadS3 points the standard AWS chain at a port nothing listens on, so an
// s3:// location fails fast at its first request and never reaches a real
// account.
func deadS3(t *testing.T) {
	none := filepath.Join(t.TempDir(), "no-such-file")
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL": "http://127.0.0.1:1", "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x",
		"AWS_REGION": "us-east-1", "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_PROFILE": "", "AWS_ENDPOINT_URL_S3": "", "AWS_CA_BUNDLE": "",
	} {
		t.Setenv(k, v)
	}
}

// TestOpenRemoteNeverLocal: an s3:// location (well-formed or not, any
// case of the scheme) is opened on S3 or refused; it never becomes a local
// directory. Open used to MkdirAll("s3://b/db") under Create, i.e. the
// directory ./s3:/b/db, and ran the statements there.
func TestOpenRemoteNeverLocal(t *testing.T) {
	deadS3(t)
	cwd := t.TempDir()
	t.Chdir(cwd)
	for _, tc := range []struct {
		loc  string
		want error
	}{
		{"s3://stablerow-none/db", s3store.ErrUnavailable}, // nothing answers at the endpoint
		{"S3://stablerow-none/db", s3store.ErrUnavailable},
		{"s3:/stablerow-none/db", errkind.InvalidArgument},
		{"s3:stablerow-none", errkind.InvalidArgument},
		{"s3://", errkind.InvalidArgument},
		{"s3://Bad_Bucket/db", errkind.InvalidArgument},
		{"gs://bucket/db", errkind.InvalidArgument},
		{"file:relative/db", errkind.InvalidArgument},
	} {
		for _, create := range []bool{false, true} {
			_, err := engine.Open(tc.loc, engine.Options{Create: create, S3: s3store.Options{MaxAttempts: 1}})
			if !errors.Is(err, tc.want) {
				t.Errorf("Open(%q, Create %v): %v, want errors.Is %v", tc.loc, create, err, tc.want)
			}
			if _, err := engine.OpenStore(t.Context(), tc.loc, engine.Options{S3: s3store.Options{MaxAttempts: 1}}); !errors.Is(err, tc.want) {
				t.Errorf("OpenStore(%q): %v, want errors.Is %v", tc.loc, err, tc.want)
			}
		}
	}
	ents, err := os.ReadDir(cwd)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("an s3 location left %q in the working directory", e.Name())
	}
}

// TestOpenFileURI: file:///abs/path is the local directory at that path.
func TestOpenFileURI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db, err := engine.Open("file://"+dir, engine.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := db.Exec(t.Context(), "CREATE TABLE t (k BIGINT)", nil); err != nil {
		t.Fatal(err)
	} else {
		res.Release()
	}
	if false {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "t", "_versions")); err != nil {
		t.Fatalf("file:// did not open the directory: %v", err)
	}
	db2, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := db2.Tables(); len(got) != 1 || got[0] != "t" {
		t.Fatalf("tables %v", got)
	}
}
