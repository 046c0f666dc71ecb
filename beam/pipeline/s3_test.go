package pipeline

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"
)

// fakeS3 starts an S3 server with one bucket and points the standard AWS
// chain at it and nowhere else; it returns the bucket's s3:// location:
// a real Versity Gateway process when STABLEROW_VERSITYGW names one (the
// S3 block of CI), else the in-process gofakes3. Workers run in this
// process (loopback), so they see the same environment, as workers on a
// cluster see its credentials.
func fakeS3(t *testing.T) string {
	t.Helper()
	url, key, secret := "", "test", "test"
	if bin := os.Getenv(envGateway); bin != "" {
		url, key, secret = versityS3(t, bin), gwKey, gwSecret
	} else {
		be := s3mem.New()
		require.NoError(t, be.CreateBucket(gwBucket))
		ts := httptest.NewServer(gofakes3.New(be).Server())
		t.Cleanup(ts.Close)
		url = ts.URL
	}
	none := filepath.Join(t.TempDir(), "no-such-file")
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL": url, "AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret,
		"AWS_REGION": "us-east-1", "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_S3_FORCE_PATH_STYLE": "", "AWS_ENDPOINT_URL_S3": "",
		"AWS_PROFILE": "", "AWS_CA_BUNDLE": "",
	} {
		t.Setenv(k, v)
	}
	return "s3://" + gwBucket
}

func TestCompactOnS3(t *testing.T) {
	b := fakeS3(t)
	rep := compactCase(t, b+"/a", b+"/b", ExecOptions{Workers: 2, Faults: Faults{Dir: t.TempDir(), FailOnce: []int{1}}})
	require.EqualValues(t, 1, rep.Metrics.AttemptsFailed)
}

func TestTakeOnS3(t *testing.T) {
	b := fakeS3(t)
	makeDB(t, b+"/db")
	rep := takeCase(t, b+"/db", b+"/in/ids.parquet", b+"/out", ExecOptions{Workers: 2})
	require.EqualValues(t, rep.Tasks, rep.Metrics.TasksExecuted)

	// The parts are objects under the prefix, one per task.
	st, err := openDirStore(context.Background(), b+"/out")
	require.NoError(t, err)
	names, err := st.List(context.Background(), partPrefix)
	require.NoError(t, err)
	require.Len(t, names, rep.Tasks)
}
