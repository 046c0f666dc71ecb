package store

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseURI(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want URI
	}{
		{"./db", URI{Scheme: "file", Path: "./db"}},
		{"/data/db", URI{Scheme: "file", Path: "/data/db"}},
		{"db", URI{Scheme: "file", Path: "db"}},
		{"C:\\db", URI{Scheme: "file", Path: "C:\\db"}},
		{"file:///data/db", URI{Scheme: "file", Path: "/data/db"}},
		{"s3://bucket", URI{Scheme: "s3", Bucket: "bucket"}},
		{"s3://bucket/", URI{Scheme: "s3", Bucket: "bucket"}},
		{"s3://my-bucket.1/a/b/", URI{Scheme: "s3", Bucket: "my-bucket.1", Prefix: "a/b"}},
		{"S3://bucket/db", URI{Scheme: "s3", Bucket: "bucket", Prefix: "db"}},
	} {
		got, err := ParseURI(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
		require.Equal(t, tc.want.Scheme != "file", IsRemoteURI(tc.in), tc.in)
	}
	for _, bad := range []string{
		"", "s3:", "s3:/x", "s3:bucket", "s3://", "s3:///db", "s3://b", "s3://Bucket/db", "s3://-bucket/x",
		"s3://bucket-/x", "s3://bu_cket/x", "s3://bucket/a/../b", "s3://bucket/a//b", "s3://bucket/./a",
		"s3://bucket/a?x=1", "gs://bucket/db", "file://relative", "http://host/x",
	} {
		_, err := ParseURI(bad)
		require.ErrorIs(t, err, ErrInvalidArgument, "%q", bad)
		if bad != "" && bad != "file://relative" {
			require.True(t, IsRemoteURI(bad), "%q must never be taken for a local path", bad)
		}
	}
}

// FuzzParseURI: ParseURI never panics; a location it accepts as s3 has a
// valid bucket and a clean prefix, and every location with a scheme is
// either refused or parsed as what its scheme says.
func FuzzParseURI(f *testing.F) {
	for _, s := range []string{"./db", "s3://bucket/a/b", "s3:/x", "s3://", "file:///x", "C:\\x", "gs://b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURI(s)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidArgument)
			return
		}
		switch u.Scheme {
		case "file":
			require.NotEmpty(t, u.Path)
		case "s3":
			require.True(t, IsRemoteURI(s))
			require.NoError(t, checkBucket(u.Bucket))
			if u.Prefix != "" {
				c, err := cleanPath(u.Prefix)
				require.NoError(t, err)
				require.Equal(t, c, u.Prefix)
			}
		default:
			t.Fatalf("scheme %q", u.Scheme)
		}
	})
}
