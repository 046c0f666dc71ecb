package adbctest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-adbc/go/adbc/driver/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"

	"github.com/stablerow/stablerow/server"
)

// selfSigned makes a certificate for 127.0.0.1 and returns the server's
// TLS config and the certificate in PEM for the client to trust.
func selfSigned(t *testing.T) (*tls.Config, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "stablerow test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	kb, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, string(certPEM)
}

// TestTLS: over TLS with a password, a client trusting the server's
// certificate runs statements; a wrong password is still Unauthenticated.
func TestTLS(t *testing.T) {
	conf, certPEM := selfSigned(t)
	ts := startServer(t, server.Options{TLS: conf, Auth: &server.Auth{Users: map[string]string{"alice": "s3cret"}}})
	opts := map[string]string{flightsql.OptionSSLRootCerts: certPEM, adbc.OptionKeyUsername: "alice", adbc.OptionKeyPassword: "s3cret"}
	cn := mustConnect(t, ts.uri, opts)
	exec(t, cn, "CREATE TABLE x (k BIGINT)")
	require.Equal(t, int64(3), exec(t, cn, "INSERT INTO x VALUES (1), (2), (3)"))
	require.Equal(t, [][]any{{int64(3)}}, query(t, cn, "SELECT count(k) FROM x"))

	opts[adbc.OptionKeyPassword] = "nope"
	bad, err := connect(t, ts.uri, opts)
	if err == nil {
		_, err = queryErr(t, bad, "SELECT 1")
	}
	requireCode(t, err, codes.Unauthenticated)
}
