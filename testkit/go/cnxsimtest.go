// Package cnxsimtest starts `cnxsim serve`, a Pulsar broker double, for a Go
// test: no Docker, a few milliseconds to start, free ports, stopped when the
// test ends.
//
//	srv := cnxsimtest.Start(t)
//	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: srv.ServiceURL})
//
// The binary is Options.Binary, else the CNXSIM environment variable, else
// `cnxsim` on PATH. Start runs `cnxsim serve --port 0 --admin-port 0` with
// the options given, reads the ready line it prints once listening, and
// registers a t.Cleanup that stops it (SIGTERM, then a kill after
// Options.StopTimeout). Every failure to start is a t.Fatalf that says what
// went wrong: no binary, not executable, exited before it was ready (with its
// exit status and standard error), or no ready line in time.
//
// Standard library only; see README.md.
package cnxsimtest

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Options say what to serve. The zero value serves cnxsim's newest modelled
// release with its defaults, on 127.0.0.1.
type Options struct {
	// Version is the Pulsar release whose behaviour is served ("3.0", "4.2",
	// "2.11.4"; `cnxsim profiles` lists them): --broker-version.
	Version string
	// Settings are broker.conf keys (Pulsar's own names), each passed as
	// --set key=value, in key order.
	Settings map[string]string
	// Setup is a scenario-format file preloading the broker: --setup.
	Setup string
	// Config is a broker.conf file: --config.
	Config string
	// Args are further `cnxsim serve` arguments, after the others
	// ("--tls-port", "0", "--fault", "PRODUCER:delay=200ms", ...). When they
	// name --port or --admin-port, Start leaves out its own "0" for it.
	Args []string
	// Binary is the cnxsim binary; empty: $CNXSIM, else cnxsim on PATH.
	Binary string
	// StartTimeout bounds the wait for the ready line (default 30 s).
	StartTimeout time.Duration
	// StopTimeout bounds the wait after SIGTERM before a kill (default 10 s).
	StopTimeout time.Duration
	// AdminAuthorization is the Authorization header ("Bearer <token>") of
	// the helper's own admin calls (Restart, Upgrade, Reset) when
	// authentication is on.
	AdminAuthorization string
	// CAFile is the CA certificate (PEM) that signed serve's certificate,
	// trusted by the helper's own admin calls when only https is served.
	// Empty: Settings["tlsTrustCertsFilePath"].
	CAFile string
}

// Server is one running `cnxsim serve`.
type Server struct {
	// ServiceURL is the binary protocol's URL: pulsar://127.0.0.1:PORT, or
	// the pulsar+ssl:// one when the plain listener is off (--port none).
	ServiceURL string
	// ServiceURLTLS is pulsar+ssl://HOST:PORT, empty without a TLS listener.
	ServiceURLTLS string
	// AdminURL is the admin REST API's URL: http://127.0.0.1:PORT, or the
	// https:// one when the plain admin listener is off.
	AdminURL string
	// AdminURLTLS is https://HOST:PORT, empty without an admin TLS listener.
	AdminURLTLS string
	// Version is the exact release served ("4.2.2"), from the ready line;
	// Upgrade updates it.
	Version string

	opts    Options
	cmd     *exec.Cmd
	stderr  *tailBuffer
	exited  chan struct{} // closed once cmd.Wait returned
	waitErr error
	stopMu  sync.Mutex
	stopped bool
	stopErr error
}

// Start starts `cnxsim serve --port 0 --admin-port 0` with opts (at most
// one Options; none: the defaults) and returns once it is listening. It
// stops the server in t.Cleanup and fails the test (t.Errorf) when serve
// does not exit 0 on SIGTERM. Any failure to start is t.Fatalf.
func Start(t testing.TB, opts ...Options) *Server {
	t.Helper()
	var o Options
	switch len(opts) {
	case 0:
	case 1:
		o = opts[0]
	default:
		t.Fatalf("cnxsimtest.Start: at most one Options, got %d", len(opts))
		return nil
	}
	s, err := start(o)
	if err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("%v", err)
		}
	})
	return s
}

// Binary returns the cnxsim binary Start would run for opts: Options.Binary,
// else $CNXSIM, else cnxsim on PATH; an error saying which was tried and what
// is wrong with it.
func Binary(opts Options) (string, error) {
	if opts.Binary != "" {
		return checkExecutable(opts.Binary, "Options.Binary")
	}
	if env := os.Getenv("CNXSIM"); env != "" {
		return checkExecutable(env, "$CNXSIM")
	}
	path, err := exec.LookPath("cnxsim")
	if err != nil {
		return "", errors.New("cnxsimtest: no cnxsim binary: $CNXSIM is not set and there is no cnxsim on PATH " +
			"(install the .deb, use the container image or unpack the release tarball: doc/packaging.md; " +
			"then put cnxsim on PATH or set CNXSIM=/path/to/cnxsim)")
	}
	return path, nil
}

func checkExecutable(path, from string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("cnxsimtest: %s=%s: no such file", from, path)
		}
		return "", fmt.Errorf("cnxsimtest: %s=%s: %v", from, path, err)
	}
	if info.IsDir() {
		return "", fmt.Errorf("cnxsimtest: %s=%s is a directory, not the cnxsim binary", from, path)
	}
	if info.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("cnxsimtest: %s=%s is not executable (mode %v): chmod +x it", from, path, info.Mode().Perm())
	}
	return path, nil
}

// Args returns the `cnxsim serve` arguments Start passes for opts.
func Args(opts Options) []string {
	args := []string{"serve"}
	if !hasFlag(opts.Args, "--port") {
		args = append(args, "--port", "0")
	}
	if !hasFlag(opts.Args, "--admin-port") {
		args = append(args, "--admin-port", "0")
	}
	if opts.Version != "" {
		args = append(args, "--broker-version", opts.Version)
	}
	if opts.Config != "" {
		args = append(args, "--config", opts.Config)
	}
	if opts.Setup != "" {
		args = append(args, "--setup", opts.Setup)
	}
	keys := make([]string, 0, len(opts.Settings))
	for k := range opts.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--set", k+"="+opts.Settings[k])
	}
	return append(args, opts.Args...)
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

func start(o Options) (*Server, error) {
	bin, err := Binary(o)
	if err != nil {
		return nil, err
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 10 * time.Second
	}
	args := Args(o)
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("cnxsimtest: %v", err)
	}
	s := &Server{opts: o, cmd: cmd, stderr: &tailBuffer{max: 64 << 10}, exited: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cnxsimtest: cannot run %s: %v", bin, err)
	}
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- strings.TrimRight(line, "\r\n")
		_, _ = io.Copy(io.Discard, r) // --trace - writes here: never let the pipe fill
	}()
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	command := bin + " " + strings.Join(args, " ")
	select {
	case line := <-lines:
		if line == "" {
			<-s.exited
			return nil, fmt.Errorf("cnxsimtest: %s exited (%v) before it printed its ready line; stderr:\n%s",
				command, s.waitErr, s.stderr.String())
		}
		if err := s.parseReady(line); err != nil {
			s.kill()
			return nil, fmt.Errorf("cnxsimtest: %s: %v; stderr:\n%s", command, err, s.stderr.String())
		}
		return s, nil
	case <-time.After(o.StartTimeout):
		s.kill()
		return nil, fmt.Errorf("cnxsimtest: %s printed no ready line within %v (killed); stderr:\n%s",
			command, o.StartTimeout, s.stderr.String())
	}
}

var (
	readyPrefix  = regexp.MustCompile(`^ready: `)
	plainURL     = regexp.MustCompile(`(?:^|[ ,])(pulsar://[^ ,]+)`)
	tlsURL       = regexp.MustCompile(`(?:^|[ ,])(pulsar\+ssl://[^ ,]+)`)
	adminURL     = regexp.MustCompile(`(?:^|[ ,])(http://[^ ,]+)`)
	adminTLSURL  = regexp.MustCompile(`(?:^|[ ,])(https://[^ ,]+)`)
	releaseInfix = regexp.MustCompile(`\(Pulsar (\S+) behaviour\)`)
)

// parseReady reads serve's ready line, by scheme (the listeners served are
// named in a fixed order, the absent ones left out):
//
//	ready: pulsar://H:P (Pulsar 4.2.2 behaviour), admin http://H:Q, pulsar+ssl://H:R, admin https://H:S
func (s *Server) parseReady(line string) error {
	if !readyPrefix.MatchString(line) {
		return fmt.Errorf("printed %q, not its ready line", line)
	}
	find := func(re *regexp.Regexp) string {
		if m := re.FindStringSubmatch(line); m != nil {
			return m[1]
		}
		return ""
	}
	plain, secure := find(plainURL), find(tlsURL)
	admin, adminTLS := find(adminURL), find(adminTLSURL)
	release := find(releaseInfix)
	if plain == "" && secure == "" {
		return fmt.Errorf("ready line %q names no pulsar:// or pulsar+ssl:// URL", line)
	}
	if admin == "" && adminTLS == "" {
		return fmt.Errorf("ready line %q names no admin http:// or https:// URL", line)
	}
	s.ServiceURL, s.ServiceURLTLS = first(plain, secure), secure
	s.AdminURL, s.AdminURLTLS = first(admin, adminTLS), adminTLS
	s.Version = release
	return nil
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Stop stops serve: SIGTERM, then a kill after Options.StopTimeout. It
// returns an error when serve did not exit 0 on SIGTERM. Calling it again
// returns the first call's answer; t.Cleanup calls it.
func (s *Server) Stop() error {
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	if s.stopped {
		return s.stopErr
	}
	s.stopped = true
	select {
	case <-s.exited:
		s.stopErr = fmt.Errorf("cnxsimtest: cnxsim serve had exited (%v) before the test ended; stderr:\n%s",
			s.waitErr, s.stderr.String())
		return s.stopErr
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		if s.waitErr != nil {
			s.stopErr = fmt.Errorf("cnxsimtest: cnxsim serve exited with %v after SIGTERM; stderr:\n%s",
				s.waitErr, s.stderr.String())
		}
	case <-time.After(s.opts.StopTimeout):
		s.kill()
		s.stopErr = fmt.Errorf("cnxsimtest: cnxsim serve did not exit within %v of SIGTERM (killed); stderr:\n%s",
			s.opts.StopTimeout, s.stderr.String())
	}
	return s.stopErr
}

func (s *Server) kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// Stderr is what serve wrote on standard error so far (its last 64 KiB;
// Args "-v" logs each connection there).
func (s *Server) Stderr() string { return s.stderr.String() }

// Restart restarts the broker on the same release under the connected
// clients (POST /cnxsim/restart): they see their connections closed and
// reconnect, as after a broker restart.
func (s *Server) Restart() error {
	_, err := s.post("/cnxsim/restart")
	return err
}

// Upgrade restarts the broker on release version (POST
// /cnxsim/upgrade?version=V) under the connected clients and updates
// Version. An error for a release not modelled (serve's 400 and its text).
func (s *Server) Upgrade(version string) error {
	if _, err := s.post("/cnxsim/upgrade?version=" + url.QueryEscape(version)); err != nil {
		return err
	}
	return s.refreshVersion()
}

// Reset puts the broker back in its start-up state (POST /cnxsim/reset):
// connections dropped, topics, schemas and policies forgotten, the start-up
// release, settings and setup file applied again.
func (s *Server) Reset() error {
	if _, err := s.post("/cnxsim/reset"); err != nil {
		return err
	}
	return s.refreshVersion()
}

var releaseField = regexp.MustCompile(`"release"\s*:\s*"([^"]+)"`)

func (s *Server) refreshVersion() error {
	body, err := s.call(http.MethodGet, "/cnxsim/status")
	if err != nil {
		return err
	}
	if m := releaseField.FindStringSubmatch(body); m != nil {
		s.Version = m[1]
	}
	return nil
}

func (s *Server) post(path string) (string, error) { return s.call(http.MethodPost, path) }

func (s *Server) call(method, path string) (string, error) {
	req, err := http.NewRequest(method, s.AdminURL+path, nil)
	if err != nil {
		return "", fmt.Errorf("cnxsimtest: %v", err)
	}
	if s.opts.AdminAuthorization != "" {
		req.Header.Set("Authorization", s.opts.AdminAuthorization)
	}
	client, err := s.httpClient()
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("cnxsimtest: %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("cnxsimtest: %s %s answered %s: %s", method, path, resp.Status, strings.TrimSpace(string(body)))
	}
	return string(body), nil
}

func (s *Server) httpClient() (*http.Client, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	if !strings.HasPrefix(s.AdminURL, "https://") {
		return client, nil
	}
	caFile := first(s.opts.CAFile, s.opts.Settings["tlsTrustCertsFilePath"])
	if caFile == "" {
		return nil, errors.New("cnxsimtest: only https is served on the admin port: set Options.CAFile to the CA that signed serve's certificate")
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("cnxsimtest: the CA file: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("cnxsimtest: %s holds no PEM certificate", caFile)
	}
	client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	return client, nil
}

// tailBuffer keeps the last max bytes written to it; safe for concurrent use.
type tailBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if over := b.buf.Len() - b.max; over > 0 {
		b.buf.Next(over)
		b.dropped = true
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped {
		return "[...]" + b.buf.String()
	}
	return b.buf.String()
}
