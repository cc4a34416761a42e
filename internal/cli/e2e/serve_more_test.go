package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"calq/internal/smtptest"
)

// TestServeStop: SIGTERM stops accepting and leaves the queued jobs in
// the journal; the next start finishes them.
func TestServeStop(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, "--grace", "2s")
	ids := make([]string, 30)
	for i := range ids {
		ids[i] = submitJob(t, s.URL, "", fmt.Sprintf("doc%02d.txt", i), fmt.Sprintf("stop test document %02d\n", i))
	}
	begin := time.Now()
	s.stop(t)
	if took := time.Since(begin); took > 20*time.Second {
		t.Errorf("SIGTERM took %v to stop calq serve with --grace 2s", took)
	}
	if !strings.Contains(s.stderr.String(), "stopping") {
		t.Errorf("stderr does not say it is stopping:\n%s", s.stderr)
	}
	if left := sofficeUnder(s.tmp); len(left) > 0 {
		t.Errorf("LibreOffice left running after SIGTERM: %v", left)
	}
	s = startServe(t, dir)
	for i, id := range ids {
		if j := waitJob(t, s.URL, "", id); j.State != "done" {
			t.Errorf("job %d after the restart: %s %s", i, j.State, j.Error)
		}
	}
}

// TestServeMail: mailTo mails the result through the config file's
// [smtp] server, to a contact or an address; an unknown contact is a
// 400 before anything is converted.
func TestServeMail(t *testing.T) {
	smtp := smtptest.Start(t, "")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[smtp]\nhost = \"127.0.0.1\"\nport = %d\nfrom = \"calq@example.net\"\nstarttls = \"none\"\n", smtp.Port)), 0o600)
	db := filepath.Join(dir, "calq.db")
	calqOut(t, serveEnv(dir), "contacts", "add", "--db", db, "boss", "boss@example.com")
	s := startServe(t, dir, "--config", cfg)

	b, ct := form(t, [][2]string{{"report.txt", "quarterly report\n"}}, map[string]string{"mailTo": "boss, audit@example.org"})
	status, body, _ := request(t, http.MethodPost, s.URL+"/forms/libreoffice/convert", "", b, ct)
	if status != 200 {
		t.Fatalf("mailTo: %d %s", status, body)
	}
	pdfText(t, body)
	// The mail goes after the reply, and is tried again until it is sent.
	raws, envs := smtp.Received(t)
	for deadline := time.Now().Add(time.Minute); len(raws) == 0 && time.Now().Before(deadline); raws, envs = smtp.Received(t) {
		time.Sleep(50 * time.Millisecond)
	}
	if len(raws) != 1 || strings.Join(envs[0].RcptTos, ",") != "boss@example.com,audit@example.org" ||
		!strings.Contains(string(raws[0]), "report.pdf") {
		t.Errorf("mail: %d messages, envelope %+v", len(raws), envs)
	}
	b, ct = form(t, [][2]string{{"report.txt", "x\n"}}, map[string]string{"mailTo": "nobody"})
	if status, body, _ := request(t, http.MethodPost, s.URL+"/forms/libreoffice/convert", "", b, ct); status != 400 ||
		!strings.Contains(string(body), "nobody") {
		t.Errorf("unknown contact: %d %s, want 400 naming it", status, body)
	}
}

// TestServeTLS: --tls-cert and --tls-key serve HTTPS.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	os.MkdirAll(filepath.Join(dir, "tmp"), 0o700)
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := calqCmd(t, "serve", "--listen", addr, "--db", filepath.Join(dir, "calq.db"), "--instances", "1",
		"--tls-cert", cert, "--tls-key", key)
	cmd.Env = append(cmd.Env, serveEnv(dir)...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pool := x509.NewCertPool()
	pem, _ := os.ReadFile(cert)
	pool.AppendCertsFromPEM(pem)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 5 * time.Second}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := client.Get("https://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 && resp.TLS != nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no HTTPS health in 2 minutes: %v\n%s", err, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if resp, err := http.Get("http://" + addr + "/health"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Error("plain HTTP answered 200 on the TLS port")
		}
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T, dir string) (string, string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "calq test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(priv)
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return cert, key
}
