package cnxsimtest

// The helper's own tests. Those named TestFake* run a shell script in
// cnxsim's place (no binary needed) to check the arguments passed, the ready
// line's parsing and every failure message; those named TestServe* need the
// real binary ($CNXSIM, as the testkit.go ctest sets it) and are skipped
// without it.

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTB is a testing.TB whose Fatalf ends the goroutine running Start (as
// the real one does) and records the message, so a test can check what a
// user's failing test would print. Only the methods Start uses are
// implemented; any other call panics on the nil embedded TB.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	fatal    string
	errors   []string
	cleanups []func()
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...interface{}) {
	f.mu.Lock()
	f.fatal = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}
func (f *fakeTB) Errorf(format string, args ...interface{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

// startFake runs Start(f, opts) as a test's goroutine: the Server, or nil and
// the t.Fatalf message.
func startFake(f *fakeTB, opts Options) (*Server, string) {
	var s *Server
	done := make(chan struct{})
	go func() {
		defer close(done)
		s = Start(f, opts)
	}()
	<-done
	return s, f.fatal
}

// runCleanups runs the registered cleanups, last first, as testing does.
func (f *fakeTB) runCleanups() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

// script writes an executable shell script named cnxsim into a new folder.
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cnxsim")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func wantContains(t *testing.T, what, got string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(got, p) {
			t.Errorf("%s %q does not contain %q", what, got, p)
		}
	}
}

const fakeReady = `ready: pulsar://127.0.0.1:41327 (Pulsar 4.2.2 behaviour), admin http://127.0.0.1:38211`

func TestFakeNoBinaryOnPath(t *testing.T) {
	t.Setenv("CNXSIM", "")
	t.Setenv("PATH", t.TempDir())
	s, fatal := startFake(&fakeTB{}, Options{})
	if s != nil {
		t.Fatal("Start returned a server without a binary")
	}
	wantContains(t, "the failure", fatal, "no cnxsim binary", "$CNXSIM is not set", "no cnxsim on PATH",
		"doc/packaging.md")
}

func TestFakeBinaryFromEnvMissing(t *testing.T) {
	t.Setenv("CNXSIM", "/nonexistent/cnxsim")
	_, fatal := startFake(&fakeTB{}, Options{})
	wantContains(t, "the failure", fatal, "$CNXSIM=/nonexistent/cnxsim: no such file")
}

func TestFakeBinaryNotExecutable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cnxsim")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CNXSIM", path)
	_, fatal := startFake(&fakeTB{}, Options{})
	wantContains(t, "the failure", fatal, "$CNXSIM="+path+" is not executable", "-rw-r--r--")
}

func TestFakeBinaryIsADirectory(t *testing.T) {
	dir := t.TempDir()
	_, fatal := startFake(&fakeTB{}, Options{Binary: dir})
	wantContains(t, "the failure", fatal, "Options.Binary="+dir+" is a directory")
}

func TestFakeExitsBeforeReady(t *testing.T) {
	bin := script(t, `echo "cnxsim serve: --broker-version: no release 9.9 is modelled" >&2; exit 2`)
	_, fatal := startFake(&fakeTB{}, Options{Binary: bin, Version: "9.9"})
	wantContains(t, "the failure", fatal, "exited (exit status 2) before it printed its ready line",
		"no release 9.9 is modelled", "--broker-version 9.9")
}

func TestFakeNoReadyLineInTime(t *testing.T) {
	bin := script(t, `echo "starting" >&2; exec sleep 30`)
	began := time.Now()
	_, fatal := startFake(&fakeTB{}, Options{Binary: bin, StartTimeout: 300 * time.Millisecond})
	wantContains(t, "the failure", fatal, "printed no ready line within 300ms (killed)", "starting")
	if waited := time.Since(began); waited > 5*time.Second {
		t.Errorf("Start waited %v, not about the 300 ms asked", waited)
	}
}

func TestFakeWrongFirstLine(t *testing.T) {
	bin := script(t, `echo "hello"; exec sleep 30`)
	_, fatal := startFake(&fakeTB{}, Options{Binary: bin})
	wantContains(t, "the failure", fatal, `printed "hello", not its ready line`)
}

// A fake serve that records its arguments, prints ready and exits 0 on SIGTERM.
func recordingFake(t *testing.T, ready string) (bin, argsFile string) {
	argsFile = filepath.Join(t.TempDir(), "args")
	bin = script(t, fmt.Sprintf(`printf '%%s\n' "$@" > %s
trap 'exit 0' TERM
echo '%s'
while :; do sleep 0.05; done`, argsFile, ready))
	return bin, argsFile
}

func TestFakeArgumentsAndPathLookup(t *testing.T) {
	bin, argsFile := recordingFake(t, fakeReady)
	t.Setenv("CNXSIM", "")
	t.Setenv("PATH", filepath.Dir(bin))
	f := &fakeTB{}
	s, fatal := startFake(f, Options{Version: "3.0", Config: "b.conf", Setup: "setup.yaml",
		Settings: map[string]string{"maxProducersPerTopic": "2", "allowAutoTopicCreation": "false"},
		Args:     []string{"--fault", "PRODUCER:delay=200ms"}})
	if s == nil {
		t.Fatalf("Start failed: %s", fatal)
	}
	got, _ := os.ReadFile(argsFile)
	want := "serve\n--port\n0\n--admin-port\n0\n--broker-version\n3.0\n--config\nb.conf\n--setup\nsetup.yaml\n" +
		"--set\nallowAutoTopicCreation=false\n--set\nmaxProducersPerTopic=2\n--fault\nPRODUCER:delay=200ms\n"
	if string(got) != want {
		t.Errorf("arguments\n%s\nwant\n%s", got, want)
	}
	if s.ServiceURL != "pulsar://127.0.0.1:41327" || s.AdminURL != "http://127.0.0.1:38211" || s.Version != "4.2.2" ||
		s.ServiceURLTLS != "" || s.AdminURLTLS != "" {
		t.Errorf("parsed %+v", s)
	}
	f.runCleanups()
	if len(f.errors) != 0 {
		t.Errorf("cleanup reported %v", f.errors)
	}
	if s.cmd.ProcessState == nil || !s.cmd.ProcessState.Exited() {
		t.Errorf("serve still running after the cleanup")
	}
}

func TestFakeOwnPortArgumentsWin(t *testing.T) {
	bin, argsFile := recordingFake(t, fakeReady)
	f := &fakeTB{}
	s, fatal := startFake(f, Options{Binary: bin, Args: []string{"--port", "none", "--admin-port=9999"}})
	if s == nil {
		t.Fatalf("Start failed: %s", fatal)
	}
	defer f.runCleanups()
	got, _ := os.ReadFile(argsFile)
	if string(got) != "serve\n--port\nnone\n--admin-port=9999\n" {
		t.Errorf("arguments %q", got)
	}
}

func TestFakeReadyLineWithTLS(t *testing.T) {
	for _, c := range []struct{ line, service, serviceTLS, admin, adminTLS, version string }{
		{"ready: pulsar://127.0.0.1:1 (Pulsar 4.2.2 behaviour), admin http://127.0.0.1:2, pulsar+ssl://127.0.0.1:3, admin https://127.0.0.1:4",
			"pulsar://127.0.0.1:1", "pulsar+ssl://127.0.0.1:3", "http://127.0.0.1:2", "https://127.0.0.1:4", "4.2.2"},
		{"ready: pulsar+ssl://localhost:6651 (Pulsar 3.0.17 behaviour), admin https://localhost:8443",
			"pulsar+ssl://localhost:6651", "pulsar+ssl://localhost:6651", "https://localhost:8443", "https://localhost:8443", "3.0.17"},
		{"ready: pulsar://127.0.0.1:1 (Pulsar 4.2.2 behaviour), admin http://127.0.0.1:2, admin https://127.0.0.1:4",
			"pulsar://127.0.0.1:1", "", "http://127.0.0.1:2", "https://127.0.0.1:4", "4.2.2"},
	} {
		s := &Server{}
		if err := s.parseReady(c.line); err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if s.ServiceURL != c.service || s.ServiceURLTLS != c.serviceTLS || s.AdminURL != c.admin ||
			s.AdminURLTLS != c.adminTLS || s.Version != c.version {
			t.Errorf("%q parsed as %+v", c.line, s)
		}
	}
	for _, bad := range []string{"ready: (Pulsar 4.2.2 behaviour), admin http://127.0.0.1:2", "ready: pulsar://127.0.0.1:1"} {
		if err := (&Server{}).parseReady(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestFakeExitsDuringTheTest(t *testing.T) {
	bin := script(t, `echo '`+fakeReady+`'; echo "cnxsim serve: crashed" >&2; sleep 0.2; exit 3`)
	f := &fakeTB{}
	s, fatal := startFake(f, Options{Binary: bin})
	if s == nil {
		t.Fatalf("Start failed: %s", fatal)
	}
	time.Sleep(time.Second)
	f.runCleanups()
	if len(f.errors) != 1 {
		t.Fatalf("cleanup reported %v, want one error", f.errors)
	}
	wantContains(t, "the cleanup's error", f.errors[0], "had exited (exit status 3) before the test ended", "crashed")
}

func TestFakeIgnoresSigterm(t *testing.T) {
	bin := script(t, `trap '' TERM; echo '`+fakeReady+`'; exec sleep 30`)
	f := &fakeTB{}
	s, fatal := startFake(f, Options{Binary: bin, StopTimeout: 300 * time.Millisecond})
	if s == nil {
		t.Fatalf("Start failed: %s", fatal)
	}
	began := time.Now()
	f.runCleanups()
	if waited := time.Since(began); waited > 5*time.Second {
		t.Errorf("the cleanup waited %v", waited)
	}
	if len(f.errors) != 1 {
		t.Fatalf("cleanup reported %v, want one error", f.errors)
	}
	wantContains(t, "the cleanup's error", f.errors[0], "did not exit within 300ms of SIGTERM (killed)")
}

func TestFakeMoreThanOneOptions(t *testing.T) {
	f := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(f, Options{}, Options{})
	}()
	<-done
	wantContains(t, "the failure", f.fatal, "at most one Options, got 2")
}

// --- with the real binary ---

func needBinary(t *testing.T) {
	t.Helper()
	if os.Getenv("CNXSIM") == "" {
		t.Skip("CNXSIM is not set: the tests of the real `cnxsim serve` need it (the testkit.go ctest sets it)")
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	client := http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestServeStartsAndStops(t *testing.T) {
	needBinary(t)
	f := &fakeTB{}
	s, fatal := startFake(f, Options{})
	if s == nil {
		t.Fatalf("Start failed: %s", fatal)
	}
	if !strings.HasPrefix(s.ServiceURL, "pulsar://127.0.0.1:") || !strings.HasPrefix(s.AdminURL, "http://127.0.0.1:") {
		t.Errorf("URLs %q %q", s.ServiceURL, s.AdminURL)
	}
	// Readiness as Testcontainers checks it.
	if status, body := get(t, s.AdminURL+"/admin/v2/clusters"); status != 200 || !strings.Contains(body, "standalone") {
		t.Errorf("GET /admin/v2/clusters: %d %s", status, body)
	}
	f.runCleanups()
	if len(f.errors) != 0 {
		t.Errorf("stopping: %v", f.errors)
	}
	if s.cmd.ProcessState == nil || !s.cmd.ProcessState.Success() {
		t.Errorf("serve did not exit 0 on SIGTERM: %v", s.cmd.ProcessState)
	}
}

func TestServeVersionSettingsAndSetup(t *testing.T) {
	needBinary(t)
	setup := filepath.Join(t.TempDir(), "setup.yaml")
	if err := os.WriteFile(setup, []byte("broker:\n  namespaces: [public/default, acme/orders]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Start(t, Options{Version: "3.0", Settings: map[string]string{"allowAutoTopicCreation": "false"}, Setup: setup})
	if !strings.HasPrefix(s.Version, "3.0.") {
		t.Errorf("Version %q, want 3.0.x", s.Version)
	}
	if status, body := get(t, s.AdminURL+"/admin/v2/brokers/configuration/values"); status != 200 ||
		!strings.Contains(body, `"allowAutoTopicCreation":"false"`) {
		t.Errorf("configuration/values: %d %s", status, body)
	}
	if status, body := get(t, s.AdminURL+"/admin/v2/namespaces/acme"); status != 200 || !strings.Contains(body, "acme/orders") {
		t.Errorf("namespaces/acme: %d %s", status, body)
	}
}

func TestServeRestartUpgradeReset(t *testing.T) {
	needBinary(t)
	s := Start(t, Options{Version: "3.0"})
	if err := s.Restart(); err != nil {
		t.Errorf("Restart: %v", err)
	}
	if err := s.Upgrade("4.2"); err != nil {
		t.Fatalf("Upgrade: %v", err)
	}
	if !strings.HasPrefix(s.Version, "4.2.") {
		t.Errorf("Version after Upgrade(4.2): %q", s.Version)
	}
	err := s.Upgrade("9.9")
	if err == nil {
		t.Fatal("Upgrade(9.9) succeeded")
	}
	wantContains(t, "Upgrade(9.9)'s error", err.Error(), "POST /cnxsim/upgrade?version=9.9 answered 400")
	if err := s.Reset(); err != nil {
		t.Errorf("Reset: %v", err)
	}
	if !strings.HasPrefix(s.Version, "3.0.") {
		t.Errorf("Version after Reset: %q, want the start-up 3.0.x", s.Version)
	}
}

func TestServeBadSettingFailsClearly(t *testing.T) {
	needBinary(t)
	_, fatal := startFake(&fakeTB{}, Options{Settings: map[string]string{"allowAutoTopicCreation": "maybe"}})
	wantContains(t, "the failure", fatal, "exited (exit status 2) before it printed its ready line", "allowAutoTopicCreation=maybe")
}

// TLS listeners (issue 44): skipped while the binary has none.
func TestServeTLS(t *testing.T) {
	needBinary(t)
	help, _ := exec.Command(os.Getenv("CNXSIM"), "help", "serve").CombinedOutput()
	if !strings.Contains(string(help), "--tls-port") {
		t.Skip("this cnxsim has no TLS yet (`cnxsim help serve` names no --tls-port)")
	}
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not found: tests/tls/make_test_pki.sh needs it")
	}
	pki := t.TempDir()
	if out, err := exec.Command("bash", filepath.Join("..", "..", "tests", "tls", "make_test_pki.sh"), pki).CombinedOutput(); err != nil {
		t.Fatalf("make_test_pki.sh: %v\n%s", err, out)
	}
	tlsSettings := map[string]string{
		"tlsCertificateFilePath": filepath.Join(pki, "broker.cert.pem"),
		"tlsKeyFilePath":         filepath.Join(pki, "broker.key.pem"),
		"tlsTrustCertsFilePath":  filepath.Join(pki, "ca.cert.pem"),
	}
	s := Start(t, Options{Args: []string{"--tls-port", "0", "--admin-tls-port", "0"}, Settings: tlsSettings})
	if !strings.HasPrefix(s.ServiceURL, "pulsar://") || !strings.HasPrefix(s.ServiceURLTLS, "pulsar+ssl://") ||
		!strings.HasPrefix(s.AdminURL, "http://") || !strings.HasPrefix(s.AdminURLTLS, "https://") {
		t.Fatalf("URLs %+v", s)
	}
	// Only TLS: the helper's own admin calls go over https, trusting the CA.
	s = Start(t, Options{Args: []string{"--port", "none", "--admin-port", "none", "--tls-port", "0", "--admin-tls-port", "0"},
		Settings: tlsSettings})
	if s.ServiceURL != s.ServiceURLTLS || s.AdminURL != s.AdminURLTLS || !strings.HasPrefix(s.AdminURL, "https://") {
		t.Fatalf("URLs with the plain listeners off: %+v", s)
	}
	if err := s.Upgrade("3.0"); err != nil || !strings.HasPrefix(s.Version, "3.0.") {
		t.Errorf("Upgrade over https: %v (Version %q)", err, s.Version)
	}
}
