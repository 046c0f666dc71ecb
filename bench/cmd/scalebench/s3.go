package main

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/engine"
	_ "github.com/stablerow/stablerow/engine/s3db" // engine opens s3:// (engine/remote.go)
	"github.com/stablerow/stablerow/table/store/s3store"
)

// s3Fig is one take on the S3 store: its requests, the bytes its ranged
// GETs returned, and its latency.
type s3Fig struct {
	IDs     int
	Warm    bool // the second run on the same DB: caches warm
	Reqs    map[string]int
	Bytes   int64
	Latency time.Duration
}

// counter counts a store's requests by kind and the bytes ranged GETs
// returned.
type counter struct {
	mu    sync.Mutex
	n     map[string]int
	bytes int64
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	kind := r.Method
	switch {
	case r.Method == http.MethodGet && r.Header.Get("Range") != "":
		kind = "GET range"
	case r.Method == http.MethodGet && r.URL.Query().Has("list-type"):
		kind = "LIST"
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	c.mu.Lock()
	c.n[kind]++
	if err == nil && resp.ContentLength > 0 && r.Method == http.MethodGet {
		c.bytes += resp.ContentLength
	}
	c.mu.Unlock()
	return resp, err
}

func (c *counter) reset() (map[string]int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, b := c.n, c.bytes
	c.n, c.bytes = map[string]int{}, 0
	return n, b
}

const (
	gwKey, gwSecret, gwBucket = "scalebench", "scalebenchsecret", "scalebench"
)

// startGateway runs versitygw (posix backend) on dir and points the AWS
// environment of this process at it.
func startGateway(bin, dir string) (stop func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	for _, d := range []string{"data", "sidecar"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	log, err := os.Create(filepath.Join(dir, "versitygw.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--access", gwKey, "--secret", gwSecret, "--region", "us-east-1",
		"--port", fmt.Sprintf("127.0.0.1:%d", port), "posix", "--sidecar", filepath.Join(dir, "sidecar"), filepath.Join(dir, "data"))
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop = func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); log.Close() }
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL": url, "AWS_ACCESS_KEY_ID": gwKey, "AWS_SECRET_ACCESS_KEY": gwSecret, "AWS_REGION": "us-east-1",
		"AWS_CONFIG_FILE": filepath.Join(dir, "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "none"),
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_PROFILE": "", "AWS_ENDPOINT_URL_S3": "", "AWS_CA_BUNDLE": "",
	} {
		os.Setenv(k, v)
	}
	for i := 0; ; i++ {
		resp, err := http.Get(url + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		if i == 300 {
			stop()
			return nil, fmt.Errorf("versitygw does not answer at %s", url)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The bucket is a directory of the posix backend.
	if err := os.MkdirAll(filepath.Join(dir, "data", gwBucket), 0o755); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// upload copies the local database directory dir to loc object by object
// through the S3 store (each object a PUT, as a writer would have made it).
func upload(ctx context.Context, dir, loc string) error {
	st, err := s3store.New(ctx, loc, s3store.Options{})
	if err != nil {
		return err
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == builtMark {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return st.Put(ctx, filepath.ToSlash(rel), b)
	})
}

// measureS3 serves the chosen tables from Versity Gateway and counts the
// requests of cold and warm takes of 1 and 10K ids.
func measureS3(ctx context.Context, c *config, results []*result) error {
	gw, err := os.MkdirTemp(c.dir, "versitygw-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(gw)
	stop, err := startGateway(c.versitygw, gw)
	if err != nil {
		return err
	}
	defer stop()
	for _, res := range results {
		if !contains(c.s3rows, res.Rows) {
			continue
		}
		loc := fmt.Sprintf("s3://%s/rows-%s", gwBucket, count(res.Rows))
		fmt.Fprintf(os.Stderr, "scalebench: %s rows: upload to %s\n", count(res.Rows), loc)
		if err := upload(ctx, dbDir(c.dir, res.Rows), loc); err != nil {
			return fmt.Errorf("upload: %w", err)
		}
		for _, n := range []int{1, 10_000} {
			for run := range c.runs {
				// A fresh DB each run: a new cache, a new index page cache.
				cnt := &counter{n: map[string]int{}}
				db, err := engine.Open(loc, engine.Options{Mem: memory.NewGoAllocator(), S3: s3store.Options{HTTPClient: &http.Client{Transport: cnt}}})
				if err != nil {
					return err
				}
				list := ids(res.Rows, n, c.seed+uint64(run))
				for _, warm := range []bool{false, true} {
					cnt.reset()
					start := time.Now()
					r, err := db.Exec(ctx, takeSQL, map[string]any{"ids": list})
					if err != nil {
						return err
					}
					took := time.Since(start)
					rows := r.NumRows()
					r.Release()
					if rows != int64(n) {
						return fmt.Errorf("S3 take of %d ids returned %d rows", n, rows)
					}
					reqs, bytes := cnt.reset()
					res.S3 = append(res.S3, s3Fig{IDs: n, Warm: warm, Reqs: reqs, Bytes: bytes, Latency: took})
				}
			}
		}
	}
	return nil
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
