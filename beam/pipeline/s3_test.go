package pipeline

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"
)

// fakeS3 starts an in-process S3 server (gofakes3) with one bucket and
// points the standard AWS chain at it and nowhere else; it returns the
// bucket's s3:// location. Workers run in this process (loopback), so they
// see the same environment, as workers on a cluster see its credentials.
func fakeS3(t *testing.T) string {
	t.Helper()
	be := s3mem.New()
	require.NoError(t, be.CreateBucket("beam"))
	ts := httptest.NewServer(gofakes3.New(be).Server())
	t.Cleanup(ts.Close)
	none := filepath.Join(t.TempDir(), "no-such-file")
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL": ts.URL, "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
		"AWS_REGION": "us-east-1", "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_S3_FORCE_PATH_STYLE": "", "AWS_ENDPOINT_URL_S3": "",
		"AWS_PROFILE": "", "AWS_CA_BUNDLE": "",
	} {
		t.Setenv(k, v)
	}
	return "s3://beam"
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
