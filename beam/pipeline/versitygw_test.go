package pipeline

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/stretchr/testify/require"
)

// envGateway names a Versity Gateway binary (scripts/versitygw-test.sh
// installs the pinned v1.8.0 and sets it). With it, the S3 tests run the
// pipelines against that real S3 server process instead of the in-process
// gofakes3, as the store's own s3test module does.
const envGateway = "STABLEROW_VERSITYGW"

const (
	gwKey    = "stablerowbeam"
	gwSecret = "stablerowbeamsecret"
	gwBucket = "beam"
)

// versityS3 starts versitygw (posix backend, metadata in sidecar files, so
// the file system needs no extended attributes) on a free loopback port
// for the test, creates the bucket and returns the gateway's URL. The
// process dies with the test (Pdeathsig) and is killed at cleanup.
func versityS3(t *testing.T, bin string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	dir := t.TempDir()
	for _, d := range []string{"data", "sidecar"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	log, err := os.Create(filepath.Join(dir, "versitygw.log"))
	require.NoError(t, err)
	cmd := exec.Command(bin, "--access", gwKey, "--secret", gwSecret, "--region", "us-east-1", "--port", addr,
		"posix", "--sidecar", filepath.Join(dir, "sidecar"), filepath.Join(dir, "data"))
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		log.Close()
		if t.Failed() {
			if b, err := os.ReadFile(log.Name()); err == nil {
				t.Logf("versitygw log:\n%s", b)
			}
		}
	})
	url := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("versitygw exited at start: %v", cmd.ProcessState)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw not answering at %s", url)
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.NoError(t, createBucket(url))
	return url
}

func createBucket(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(gwKey, gwSecret, "")))
	if err != nil {
		return err
	}
	b := gwBucket
	c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true; o.BaseEndpoint = &url })
	_, err = c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &b})
	var owned *types.BucketAlreadyOwnedByYou
	var exists *types.BucketAlreadyExists
	if err != nil && !errors.As(err, &owned) && !errors.As(err, &exists) {
		return fmt.Errorf("create bucket %s: %w", b, err)
	}
	return nil
}
