package s3store

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWantPathStyle(t *testing.T) {
	for _, tc := range []struct {
		endpoint, force string
		want            bool
	}{
		{"", "", false},
		{"https://s3.eu-west-1.amazonaws.com", "", false},
		{"http://127.0.0.1:9000", "", true},
		{"http://[::1]:9000", "", true},
		{"http://localhost:7070", "", true},
		{"http://minio.localhost", "", true},
		{"https://storage.example.com", "", false},
		{"https://storage.example.com", "true", true},
		{"https://storage.example.com", "TRUE", true},
		{"", "true", true},
		{"http://127.0.0.1:9000", "false", true}, // an IP endpoint cannot do virtual hosts
		{"::not a url", "", false},
	} {
		require.Equal(t, tc.want, wantPathStyle(tc.endpoint, tc.force), "%q force=%q", tc.endpoint, tc.force)
	}
}
