package s3test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// The integration tests run against a real S3 server process, Versity
// Gateway (github.com/versity/versitygw v1.8.0, posix backend on a
// temporary directory), when STABLEROW_VERSITYGW names its binary
// (scripts/versitygw-test.sh installs it and sets it). TestMain then starts
// one gateway for the package and points the standard AWS chain at it;
// target() gives each test a fresh prefix in its bucket. Tests that must
// kill the server start a gateway of their own (startGateway).
//
// Without STABLEROW_VERSITYGW the same tests run against the in-process
// gofakes3, except those that need a process to kill.

const (
	gwKey    = "stablerowtest"
	gwSecret = "stablerowtestsecret"
	gwBucket = "stablerow-it"
	envGW    = "STABLEROW_VERSITYGW"
)

// gateway is one Versity Gateway process serving dir on 127.0.0.1:port.
type gateway struct {
	bin, dir, port string
	cmd            *exec.Cmd
	done           chan struct{}
	log            *os.File
}

func TestMain(m *testing.M) {
	if os.Getenv(envChild) != "" || os.Getenv(envGW) == "" {
		os.Exit(m.Run()) // a child process inherits its parent's environment
	}
	dir, err := os.MkdirTemp("", "stablerow-versitygw-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	g, err := launchGateway(os.Getenv(envGW), dir, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, "versitygw:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	for k, v := range gatewayEnv(g.url()) {
		os.Setenv(k, v)
	}
	os.Setenv("STABLEROW_S3_TEST_BUCKET", gwBucket)
	code := m.Run()
	g.stop()
	if code != 0 {
		if b, err := os.ReadFile(filepath.Join(dir, "versitygw.log")); err == nil {
			fmt.Fprintf(os.Stderr, "versitygw log (tail):\n%s\n", tail(string(b), 40))
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

func tail(s string, lines int) string {
	ls := strings.Split(s, "\n")
	return strings.Join(ls[max(0, len(ls)-lines):], "\n")
}

// gatewayEnv is the standard AWS environment for a gateway at url, and
// nothing else (no shared config, no instance metadata).
func gatewayEnv(url string) map[string]string {
	return map[string]string{
		"AWS_ENDPOINT_URL": url, "AWS_ACCESS_KEY_ID": gwKey, "AWS_SECRET_ACCESS_KEY": gwSecret,
		"AWS_REGION": "us-east-1", "AWS_CONFIG_FILE": os.DevNull + "-none", "AWS_SHARED_CREDENTIALS_FILE": os.DevNull + "-none",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_PROFILE": "", "AWS_ENDPOINT_URL_S3": "", "AWS_CA_BUNDLE": "",
		"AWS_S3_FORCE_PATH_STYLE": "",
	}
}

// launchGateway starts versitygw on dir (its data and sidecar metadata
// under it) at port ("" picks a free one), waits until it answers, and
// creates the test bucket.
func launchGateway(bin, dir, port string) (*gateway, error) {
	if port == "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port = fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
		l.Close()
	}
	for _, d := range []string{"data", "sidecar"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	log, err := os.OpenFile(filepath.Join(dir, "versitygw.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	// --sidecar keeps object metadata in files, so the data directory needs
	// no extended attribute support (tmpfs and overlay file systems vary).
	g := &gateway{bin: bin, dir: dir, port: port, done: make(chan struct{}), log: log}
	g.cmd = exec.Command(bin, "--access", gwKey, "--secret", gwSecret, "--region", "us-east-1", "--port", "127.0.0.1:"+port,
		"posix", "--sidecar", filepath.Join(dir, "sidecar"), filepath.Join(dir, "data"))
	g.cmd.Stdout, g.cmd.Stderr = log, log
	g.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the test
	if err := g.cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	cmd, done := g.cmd, g.done // restart replaces g's fields
	go func() { _ = cmd.Wait(); close(done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(g.url() + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-g.done:
			return nil, fmt.Errorf("exited at start: %v (log %s)", g.cmd.ProcessState, log.Name())
		default:
		}
		if time.Now().After(deadline) {
			g.stop()
			return nil, fmt.Errorf("not answering at %s", g.url())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return g, g.createBucket()
}

func (g *gateway) url() string { return "http://127.0.0.1:" + g.port }

func (g *gateway) createBucket() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(gwKey, gwSecret, "")))
	if err != nil {
		return err
	}
	url, b := g.url(), gwBucket
	c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true; o.BaseEndpoint = &url })
	_, err = c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &b})
	var owned *types.BucketAlreadyOwnedByYou
	var exists *types.BucketAlreadyExists
	if err != nil && !errors.As(err, &owned) && !errors.As(err, &exists) {
		return fmt.Errorf("create bucket: %w", err)
	}
	return nil
}

// kill SIGKILLs the gateway: requests in flight get no answer.
func (g *gateway) kill() {
	_ = g.cmd.Process.Kill()
	<-g.done
}

func (g *gateway) stop() {
	g.kill()
	g.log.Close()
}

// startGateway starts a gateway of the test's own (for tests that kill
// it), skipping the test when no binary is configured.
func startGateway(t *testing.T) *gateway {
	t.Helper()
	bin := os.Getenv(envGW)
	if bin == "" {
		t.Skipf("needs a real S3 server process: set %s (scripts/versitygw-test.sh does)", envGW)
	}
	g, err := launchGateway(bin, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.stop)
	return g
}

// restart starts the gateway again on the same directory and port.
func (g *gateway) restart(t *testing.T) {
	t.Helper()
	g.kill() // a killer may still be waiting for it to exit
	g.log.Close()
	ng, err := launchGateway(g.bin, g.dir, g.port)
	if err != nil {
		t.Fatal(err)
	}
	*g = *ng
}
