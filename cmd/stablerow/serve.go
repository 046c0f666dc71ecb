//go:build stablerow_full

package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/server"
)

// errServeArgs: a bad command line for `stablerow serve`.
var errServeArgs = errkind.New(errkind.InvalidArgument, "serve")

// runServe is `stablerow serve -d DIR [-addr HOST:PORT] ...`: the Flight
// SQL server (package server) until SIGINT or SIGTERM.
func runServe(ctx context.Context, args []string) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveCmd(ctx, os.Stderr, args, nil)
}

// serveCmd serves until ctx ends; ready, if not nil, gets the address once
// the server listens (tests).
func serveCmd(ctx context.Context, w io.Writer, args []string, ready func(net.Addr)) error {
	fs := newFlags("serve", "serve [-d DIR] [-addr HOST:PORT] [-user NAME] [-tokens FILE] [-tls-cert FILE -tls-key FILE] [-max-endpoints N] [-split-min-ids N]: serve Arrow Flight SQL")
	dir := fs.String("d", ".stablerow", "database directory")
	create := fs.Bool("create", false, "make the database directory if it does not exist")
	addr := fs.String("addr", "127.0.0.1:31337", "listen address; beyond localhost requires -user or -tokens")
	advertise := fs.String("advertise", "", "the URI clients reach the server at (grpc://HOST:PORT or grpc+tls://HOST:PORT), given as the location of the endpoints of a take split into several; default: the listen address")
	user := fs.String("user", "", "accept this user name with the password in $STABLEROW_PASSWORD (Basic auth, which issues bearer tokens)")
	tokens := fs.String("tokens", "", "a file of bearer tokens to accept, one a line")
	cert := fs.String("tls-cert", "", "TLS certificate file (PEM); with -tls-key serves TLS")
	key := fs.String("tls-key", "", "TLS private key file (PEM)")
	files := fs.String("files", "", "the directory COPY and CREATE TABLE AS may read and write (paths resolve inside it); none: file access refused")
	ttl := fs.Duration("result-ttl", 5*time.Minute, "close a query's result nobody fetched after this long")
	split := splitFlags(fs)
	memory := resourceFlags(fs)
	budgetFlags := serveMemoryFlags(fs) // -server-memory, -admission-timeout, -prepared-ttl (servememory.go)
	guard := guardFlags(fs)             // serveguard.go
	debugFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dbOpt := engine.Options{Create: *create}
	if err := memory(&dbOpt); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errServeArgs, fs.Arg(0))
	}
	opt := server.Options{ResultTTL: *ttl, Logger: slog.New(slog.NewTextHandler(w, nil)), Location: *advertise}
	if err := split(w, &opt); err != nil {
		return err
	}
	if err := budgetFlags(&opt); err != nil {
		return err
	}
	auth := &server.Auth{}
	if *user != "" {
		pw := os.Getenv("STABLEROW_PASSWORD")
		if pw == "" {
			return fmt.Errorf("%w: -user %s needs the password in $STABLEROW_PASSWORD", errServeArgs, *user)
		}
		auth.Users = map[string]string{*user: pw}
	}
	if *tokens != "" {
		toks, err := readTokens(*tokens)
		if err != nil {
			return err
		}
		auth.Tokens = toks
	}
	opt.Auth = auth
	opt.Files = *files
	if err := guard(&opt, auth); err != nil {
		return err
	}
	if (*cert == "") != (*key == "") {
		return fmt.Errorf("%w: -tls-cert and -tls-key go together", errServeArgs)
	}
	scheme := "grpc"
	if *cert != "" {
		pair, err := tls.LoadX509KeyPair(*cert, *key)
		if err != nil {
			return fmt.Errorf("%w: TLS: %w", errServeArgs, err)
		}
		opt.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
		scheme = "grpc+tls"
	}
	if err := server.CheckAddr(*addr, auth); err != nil {
		return err
	}
	db, err := openDB(*dir, dbOpt, "serve -create makes it")
	if err != nil {
		return err
	}
	srv, err := server.New(db, opt)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintf(w, "stablerow: serving Flight SQL on %s://%s (database %s)\n", scheme, lis.Addr(), *dir)
	if ready != nil {
		ready(lis.Addr())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(lis) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		srv.Shutdown()
		<-done
		return nil
	}
}

// readTokens reads bearer tokens, one a line; blank lines and lines
// starting with # are skipped.
func readTokens(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: -tokens: %w", errServeArgs, err)
	}
	defer f.Close()
	var toks []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" && !strings.HasPrefix(t, "#") {
			toks = append(toks, t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: -tokens: %w", errServeArgs, err)
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("%w: -tokens %s holds no token", errServeArgs, path)
	}
	return toks, nil
}
