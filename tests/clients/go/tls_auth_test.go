// The Go client over TLS with authentication (issue 44): serve with TLS
// listeners for the binary protocol and the admin API, token, basic and TLS
// client-certificate authentication, and authorization with superuser
// `admin`, the settings being Pulsar's own broker.conf keys. The
// certificates, keys, tokens and htpasswd are made by tests/tls/make_test_pki.sh
// at test time (into $CNXSIM_TEST_PKI_DIR, the ctest's build folder, else a
// temporary one).
//
// Each test is skipped, saying so, when the cnxsim binary has no TLS yet
// (`cnxsim help serve` without --tls-port) or does not know the
// authentication keys.
package clients

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"
	pulsarlog "github.com/apache/pulsar-client-go/pulsar/log"
	"github.com/apache/pulsar-client-go/pulsaradmin"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin/config"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/rest"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/sirupsen/logrus"
)

const (
	providerToken = "org.apache.pulsar.broker.authentication.AuthenticationProviderToken"
	providerBasic = "org.apache.pulsar.broker.authentication.AuthenticationProviderBasic"
	providerTLS   = "org.apache.pulsar.broker.authentication.AuthenticationProviderTls"
	// ServerCnx.authenticationFailed: Commands.newError(-1,
	// ServerError.AuthenticationError, "Failed to authenticate"); the Go
	// client logs it (internal/connection.go doHandshake) and answers
	// "connection error" to the waiting request.
	pulsarAuthFailed = "Failed to authenticate"
	// AuthenticationFilter: response.sendError(SC_UNAUTHORIZED, "Authentication required").
	pulsarHTTPAuthRequired = "Authentication required"
)

var (
	pkiOnce sync.Once
	pkiDir  string
	pkiErr  error
)

// testPKI is the folder make_test_pki.sh filled (once per test binary run).
func testPKI(t *testing.T) string {
	t.Helper()
	pkiOnce.Do(func() {
		if _, err := exec.LookPath("openssl"); err != nil {
			pkiErr = errors.New("openssl not found: tests/tls/make_test_pki.sh needs it")
			return
		}
		pkiDir = os.Getenv("CNXSIM_TEST_PKI_DIR")
		if pkiDir == "" {
			if pkiDir, pkiErr = os.MkdirTemp("", "cnxsim-go-pki-"); pkiErr != nil {
				return
			}
		}
		script, _ := filepath.Abs(filepath.Join("..", "..", "tls", "make_test_pki.sh"))
		out, err := exec.Command("bash", script, pkiDir).CombinedOutput()
		if err != nil {
			pkiErr = fmt.Errorf("%s %s: %v\n%s", script, pkiDir, err, out)
		}
	})
	if pkiErr != nil {
		if strings.HasPrefix(pkiErr.Error(), "openssl not found") {
			t.Skip(pkiErr.Error())
		}
		t.Fatal(pkiErr)
	}
	return pkiDir
}

func pkiFile(t *testing.T, name string) string {
	return filepath.Join(testPKI(t), name)
}

func pkiText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(pkiFile(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

var (
	tlsSupportOnce sync.Once
	tlsSupported   bool
)

// requireTLS skips the test when the binary has no TLS listener yet.
func requireTLS(t *testing.T) {
	t.Helper()
	tlsSupportOnce.Do(func() {
		out, _ := exec.Command(cnxsimBinary(), "help", "serve").CombinedOutput()
		tlsSupported = strings.Contains(string(out), "--tls-port")
	})
	if !tlsSupported {
		t.Skip("this cnxsim has no TLS yet (`cnxsim help serve` names no --tls-port; issue 44 parts A and B)")
	}
}

// secureArgs are the serve arguments of a broker secured as the Go client's
// own CI secures its standalone (integration-tests/conf/standalone.conf),
// on free ports.
func secureArgs(t *testing.T, extra ...string) []string {
	pki := testPKI(t)
	args := []string{"--tls-port", "0", "--admin-tls-port", "0",
		"--set", "tlsCertificateFilePath=" + filepath.Join(pki, "broker.cert.pem"),
		"--set", "tlsKeyFilePath=" + filepath.Join(pki, "broker.key.pem"),
		"--set", "tlsTrustCertsFilePath=" + filepath.Join(pki, "ca.cert.pem"),
		"--set", "authenticationEnabled=true",
		"--set", "authenticationProviders=" + providerToken + "," + providerBasic + "," + providerTLS,
		"--set", "tokenSecretKey=file://" + filepath.Join(pki, "secret.key"),
		"--set", "basicAuthConf=" + filepath.Join(pki, "htpasswd"),
		"--set", "authorizationEnabled=true",
		"--set", "superUserRoles=admin"}
	return append(args, extra...)
}

// startSecure starts a secured serve for t, stopped at its end.
func startSecure(t *testing.T, extra ...string) *serve {
	t.Helper()
	requireTLS(t)
	s, err := startServe(brokerVersion(), secureArgs(t, extra...)...)
	if err != nil {
		if strings.Contains(err.Error(), "authenticationEnabled") || strings.Contains(err.Error(), "authorizationEnabled") {
			t.Skip("this cnxsim has TLS but not authentication or authorization yet: ", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Error(err)
		}
	})
	if s.URLTLS == "" || s.AdminTLS == "" {
		t.Fatalf("the ready line names no pulsar+ssl:// or https:// URL: %+v", s)
	}
	return s
}

// syncBuffer is the client's log, written from its goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// tlsClient is a client of s's pulsar+ssl:// URL trusting the test CA, with
// auth (nil: none); its log (warnings and up) is returned.
func tlsClient(t *testing.T, s *serve, auth pulsar.Authentication, opTimeout time.Duration) (pulsar.Client, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	l := logrus.New()
	l.SetOutput(log)
	l.SetLevel(logrus.WarnLevel)
	c, err := pulsar.NewClient(pulsar.ClientOptions{
		URL:                   s.URLTLS,
		TLSTrustCertsFilePath: pkiFile(t, "ca.cert.pem"),
		TLSValidateHostname:   true,
		Authentication:        auth,
		ConnectionTimeout:     5 * time.Second,
		OperationTimeout:      opTimeout,
		Logger:                pulsarlog.NewLoggerWithLogrus(l),
	})
	if err != nil {
		t.Fatalf("NewClient(%s): %v", s.URLTLS, err)
	}
	t.Cleanup(c.Close)
	return c, log
}

// adminTLS is pulsaradmin over s's https:// URL, with token ("" = none).
func adminTLS(t *testing.T, s *serve, token string) pulsaradmin.Client {
	t.Helper()
	a, err := pulsaradmin.NewClient(&config.Config{
		WebServiceURL:                 s.AdminTLS,
		TLSTrustCertsFilePath:         pkiFile(t, "ca.cert.pem"),
		TLSEnableHostnameVerification: true,
		Token:                         token,
	})
	if err != nil {
		t.Fatalf("pulsaradmin.NewClient(%s): %v", s.AdminTLS, err)
	}
	return a
}

// grant gives role produce and consume on public/default, as the admin.
func grant(t *testing.T, s *serve, role string) {
	t.Helper()
	ns, err := utils.GetNamespaceName("public/default")
	if err != nil {
		t.Fatal(err)
	}
	produce, _ := utils.ParseAuthAction("produce")
	consume, _ := utils.ParseAuthAction("consume")
	err = adminTLS(t, s, pkiText(t, "token-admin.jwt")).Namespaces().GrantNamespacePermission(*ns, role,
		[]utils.AuthAction{produce, consume})
	if err != nil {
		t.Fatalf("granting %s produce and consume on public/default: %v", role, err)
	}
}

// produceConsume sends one message through c and receives it.
func produceConsume(t *testing.T, c pulsar.Client, what string) {
	t.Helper()
	topic := topicName(t, what)
	consumer, err := c.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "sub"})
	if err != nil {
		t.Fatalf("Subscribe(%s): %v", topic, err)
	}
	defer consumer.Close()
	producer, err := c.CreateProducer(pulsar.ProducerOptions{Topic: topic})
	if err != nil {
		t.Fatalf("CreateProducer(%s): %v", topic, err)
	}
	defer producer.Close()
	if _, err := producer.Send(ctx(t), &pulsar.ProducerMessage{Payload: []byte(what)}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	msg, err := consumer.Receive(ctx(t))
	if err != nil {
		t.Fatalf("Receive: %v", err)
	}
	if string(msg.Payload()) != what {
		t.Fatalf("received %q, want %q", msg.Payload(), what)
	}
	_ = consumer.Ack(msg)
}

func TestTLSAuthToken(t *testing.T) {
	s := startSecure(t)
	// admin: a superuser.
	c, _ := tlsClient(t, s, pulsar.NewAuthenticationToken(pkiText(t, "token-admin.jwt")), 10*time.Second)
	produceConsume(t, c, "tls-token-admin")
	// alice, once granted produce and consume.
	grant(t, s, "alice")
	c, _ = tlsClient(t, s, pulsar.NewAuthenticationToken(pkiText(t, "token-alice.jwt")), 10*time.Second)
	produceConsume(t, c, "tls-token-alice")
	// The token from a file, as the client's token-file supplier reads it.
	c, _ = tlsClient(t, s, pulsar.NewAuthenticationTokenFromFile(pkiFile(t, "token-alice.jwt")), 10*time.Second)
	produceConsume(t, c, "tls-token-file")
}

func TestTLSAuthBasic(t *testing.T) {
	s := startSecure(t)
	grant(t, s, "basic-user")
	auth, err := pulsar.NewAuthenticationBasic("basic-user", "basic-pass")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := tlsClient(t, s, auth, 10*time.Second)
	produceConsume(t, c, "tls-basic")
}

func TestTLSAuthClientCertificate(t *testing.T) {
	s := startSecure(t)
	grant(t, s, "client-tls") // the client certificate's CN
	c, _ := tlsClient(t, s, pulsar.NewAuthenticationTLS(pkiFile(t, "client.cert.pem"), pkiFile(t, "client.key.pem")),
		10*time.Second)
	produceConsume(t, c, "tls-client-cert")
}

// The refusals: the client's CreateProducer fails once its operation timeout
// passes (its lookup retries: internal/rpc_client.go requestToHost) with
// context.DeadlineExceeded joined to "connection error", and its log has
// Pulsar's text, "Failed to establish connection with broker: 'Failed to
// authenticate'".
func TestTLSAuthRefused(t *testing.T) {
	s := startSecure(t)
	basicWrong, err := pulsar.NewAuthenticationBasic("basic-user", "wrong-pass")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		auth pulsar.Authentication
	}{
		{"no credentials", nil},
		{"expired token", pulsar.NewAuthenticationToken(pkiText(t, "token-expired.jwt"))},
		{"badly signed token", pulsar.NewAuthenticationToken(pkiText(t, "token-bad-signature.jwt"))},
		{"wrong password", basicWrong},
	} {
		t.Run(c.name, func(t *testing.T) {
			client, log := tlsClient(t, s, c.auth, 2*time.Second)
			producer, err := client.CreateProducer(pulsar.ProducerOptions{Topic: topicName(t, "refused")})
			if err == nil {
				producer.Close()
				t.Fatal("CreateProducer succeeded")
			}
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "connection error") {
				t.Errorf("CreateProducer: %q, want context deadline exceeded and connection error", err)
			}
			want := "Failed to establish connection with broker: '" + pulsarAuthFailed + "'"
			if !strings.Contains(log.String(), want) {
				t.Errorf("the client's log has no %q:\n%s", want, log.String())
			}
		})
	}
}

func TestTLSAuthUntrustedCertificate(t *testing.T) {
	s := startSecure(t)
	log := &syncBuffer{}
	l := logrus.New()
	l.SetOutput(log)
	c, err := pulsar.NewClient(pulsar.ClientOptions{ // no TLSTrustCertsFilePath: the system's roots
		URL:               s.URLTLS,
		Authentication:    pulsar.NewAuthenticationToken(pkiText(t, "token-admin.jwt")),
		ConnectionTimeout: 5 * time.Second,
		OperationTimeout:  2 * time.Second,
		Logger:            pulsarlog.NewLoggerWithLogrus(l),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	producer, err := c.CreateProducer(pulsar.ProducerOptions{Topic: topicName(t, "untrusted")})
	if err == nil {
		producer.Close()
		t.Fatal("CreateProducer succeeded with a certificate the client does not trust")
	}
	if !strings.Contains(log.String(), "certificate signed by unknown authority") {
		t.Errorf("CreateProducer: %v; the client's log has no 'certificate signed by unknown authority':\n%s", err, log.String())
	}
}

func TestTLSAuthAdmin(t *testing.T) {
	s := startSecure(t)
	clusters, err := adminTLS(t, s, pkiText(t, "token-admin.jwt")).Clusters().List()
	if err != nil || len(clusters) == 0 || clusters[0] != "standalone" {
		t.Fatalf("Clusters().List() with the admin token: %v, %v", clusters, err)
	}
	for name, token := range map[string]string{"no token": "", "expired token": pkiText(t, "token-expired.jwt"),
		"badly signed token": pkiText(t, "token-bad-signature.jwt")} {
		_, err := adminTLS(t, s, token).Clusters().List()
		var re rest.Error
		if !errors.As(err, &re) || re.Code != 401 || !strings.Contains(re.Reason, pulsarHTTPAuthRequired) {
			t.Errorf("Clusters().List() with %s: %v, want rest.Error 401 %q", name, err, pulsarHTTPAuthRequired)
		}
	}
	// The plain admin port is secured the same way.
	if status, body := adminCall(t, s, "GET", "/admin/v2/clusters", ""); status != 401 {
		t.Errorf("GET /admin/v2/clusters on http:// without credentials: %d %s", status, body)
	}
}
