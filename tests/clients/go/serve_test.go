// The official Go client (github.com/apache/pulsar-client-go, pinned by go.mod
// and go.sum) against `cnxsim serve`. Each test binary run starts its own
// `cnxsim serve --port 0` on free 127.0.0.1 ports (shared by the tests that
// only add topics of their own), and the lifecycle tests start one each; every
// serve is stopped with SIGTERM and must exit 0.
//
// The cnxsim binary comes from the CNXSIM environment variable (or -cnxsim);
// CNXSIM_BROKER_VERSION (or -broker-version) picks the release served (default:
// the newest modelled). The tests whose answer differs between releases read
// it through brokerLine().
package clients

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"
	pulsarlog "github.com/apache/pulsar-client-go/pulsar/log"
	"github.com/sirupsen/logrus"
)

var (
	cnxsimFlag        = flag.String("cnxsim", "", "the cnxsim binary (default: $CNXSIM)")
	brokerVersionFlag = flag.String("broker-version", "", "the release served (default: $CNXSIM_BROKER_VERSION, else cnxsim's newest)")
)

var readyLine = regexp.MustCompile(`^ready: (pulsar://\S+) \(Pulsar (\S+) behaviour\), admin (http://[^ ,]+)(?:, .*)?$`)

// serve is one running `cnxsim serve`.
type serve struct {
	URL     string // pulsar://127.0.0.1:PORT
	Admin   string // http://127.0.0.1:PORT
	Release string // the exact release served, from the ready line
	cmd     *exec.Cmd
	stderr  *strings.Builder
	mu      sync.Mutex
}

func cnxsimBinary() string {
	if *cnxsimFlag != "" {
		return *cnxsimFlag
	}
	return os.Getenv("CNXSIM")
}

func brokerVersion() string {
	if *brokerVersionFlag != "" {
		return *brokerVersionFlag
	}
	return os.Getenv("CNXSIM_BROKER_VERSION")
}

// startServe starts `cnxsim serve --port 0 [--broker-version V] extra...` and
// waits (at most 30 s) for its ready line.
func startServe(version string, extra ...string) (*serve, error) {
	bin := cnxsimBinary()
	if bin == "" {
		return nil, fmt.Errorf("no cnxsim binary: set CNXSIM or pass -cnxsim")
	}
	args := []string{"serve", "--port", "0"}
	if version != "" {
		args = append(args, "--broker-version", version)
	}
	args = append(args, extra...)
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &serve{cmd: cmd, stderr: &strings.Builder{}}
	cmd.Stderr = lockedWriter{s}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- strings.TrimRight(line, "\n")
		_, _ = io.Copy(io.Discard, r) // --trace is not used: nothing more is printed
	}()
	select {
	case line := <-lines:
		m := readyLine.FindStringSubmatch(line)
		if m == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return nil, fmt.Errorf("cnxsim serve printed %q, not its ready line; stderr: %s", line, s.stderrText())
		}
		s.URL, s.Release, s.Admin = m[1], m[2], m[3]
		return s, nil
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("cnxsim serve printed no ready line within 30 s; stderr: %s", s.stderrText())
	}
}

type lockedWriter struct{ s *serve }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.stderr.Write(p)
}

func (s *serve) stderrText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// stop sends SIGTERM and waits (at most 15 s); serve must exit 0.
func (s *serve) stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("cnxsim serve exited with %v after SIGTERM; stderr: %s", err, s.stderrText())
		}
		return nil
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
		return fmt.Errorf("cnxsim serve did not exit within 15 s of SIGTERM")
	}
}

// shared is the serve of the tests that only touch topics of their own.
var shared *serve

func TestMain(m *testing.M) {
	flag.Parse()
	if cnxsimBinary() == "" {
		fmt.Fprintln(os.Stderr, "no cnxsim binary: set CNXSIM or pass -cnxsim")
		os.Exit(2)
	}
	var err error
	shared, err = startServe(brokerVersion())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := shared.stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// brokerLine is the release line served ("4.2", "2.11").
func (s *serve) brokerLine() string {
	parts := strings.SplitN(s.Release, ".", 3)
	if len(parts) < 2 {
		return s.Release
	}
	return parts[0] + "." + parts[1]
}

// lineAtLeast: whether the served release line is at least major.minor.
func (s *serve) lineAtLeast(major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(s.Release, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}

var topicCounter atomic.Int64

// topicName is a persistent topic of public/default no other test uses.
func topicName(t *testing.T, what string) string {
	return fmt.Sprintf("persistent://public/default/go-%s-%d-%d", what, time.Now().UnixNano()%1000000, topicCounter.Add(1))
}

// quietLogger keeps the client's warnings (a refused producer is logged as an
// error by the client itself, which is what the tests provoke).
func quietLogger() pulsarlog.Logger {
	l := logrus.New()
	l.SetLevel(logrus.FatalLevel)
	if os.Getenv("CNXSIM_GO_CLIENT_LOG") != "" {
		l.SetLevel(logrus.DebugLevel)
	}
	return pulsarlog.NewLoggerWithLogrus(l)
}

// newClient is a client of s, every wait bounded.
func newClient(t *testing.T, s *serve) pulsar.Client {
	t.Helper()
	c, err := pulsar.NewClient(pulsar.ClientOptions{
		URL:               s.URL,
		ConnectionTimeout: 5 * time.Second,
		OperationTimeout:  10 * time.Second,
		Logger:            quietLogger(),
	})
	if err != nil {
		t.Fatalf("NewClient(%s): %v", s.URL, err)
	}
	t.Cleanup(c.Close)
	return c
}

// ctx is a context that ends within 20 s (every Receive and Send is bounded).
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// adminCall makes one HTTP call on s's admin port and returns status and body.
func adminCall(t *testing.T, s *serve, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.Admin+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := http.Client{Timeout: 15 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// mustAdmin is adminCall that requires a 2xx status.
func mustAdmin(t *testing.T, s *serve, method, path, body string) string {
	t.Helper()
	status, text := adminCall(t, s, method, path, body)
	if status/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, status, text)
	}
	return text
}

// restPath is a topic's path under /admin/v2 ("persistent/public/default/x").
func restPath(topic string) string {
	return strings.Replace(topic, "://", "/", 1)
}

// schemaPath is a topic's path under /admin/v2/schemas ("public/default/x").
func schemaPath(topic string) string {
	return strings.TrimPrefix(strings.TrimPrefix(topic, "persistent://"), "non-persistent://")
}
