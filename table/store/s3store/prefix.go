package s3store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/stablerow/stablerow/table/store"
)

// A database on S3 is a prefix whose tables are sub-prefixes
// (s3://bucket/db/<table>/...), as a local database is a directory of
// table directories. Sub and ListDirs are the two operations that layout
// needs beyond store.Store.

// Sub returns the store of the sub-prefix p of s ("t" of s3://b/db is
// s3://b/db/t). It shares s's client, options and cache and sends no
// request: the bucket was checked when s was opened.
func (s *Store) Sub(p string) (*Store, error) {
	c, err := store.CleanPath(p)
	if err != nil {
		return nil, err
	}
	sub := *s
	sub.prefix = s.prefix + c + "/"
	return &sub, nil
}

// Location returns the store's location, s3://bucket/prefix.
func (s *Store) Location() string {
	return "s3://" + s.bucket + "/" + strings.TrimSuffix(s.prefix, "/")
}

// ListDirs returns the names of the sub-prefixes directly under prefix
// (which is "" or ends in "/"), sorted: "a/x" and "b/y/z" under "" give
// "a" and "b". It is one delimited listing, whatever the number of
// objects below those sub-prefixes.
func (s *Store) ListDirs(ctx context.Context, prefix string) ([]string, error) {
	if strings.HasPrefix(prefix, "/") || strings.Contains(prefix, "\\") || prefix != "" && !strings.HasSuffix(prefix, "/") {
		return nil, fmt.Errorf("%w: bad prefix %q", store.ErrInvalidArgument, prefix)
	}
	full := s.prefix + prefix
	in := &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(full), Delimiter: aws.String("/")}
	if s.opts.ListPageSize > 0 {
		in.MaxKeys = aws.Int32(s.opts.ListPageSize)
	}
	var out []string
	pg := s3.NewListObjectsV2Paginator(s.c, in)
	for pg.HasMorePages() {
		page, err := pg.NextPage(ctx)
		if err != nil {
			return nil, s.mapErr("list", prefix, err)
		}
		for _, cp := range page.CommonPrefixes {
			name := strings.TrimSuffix(strings.TrimPrefix(aws.ToString(cp.Prefix), full), "/")
			if name != "" {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Empty reports whether no object lies under the store's prefix (one
// listing of at most one key).
func (s *Store) Empty(ctx context.Context) (bool, error) {
	out, err := s.c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.prefix), MaxKeys: aws.Int32(1)})
	if err != nil {
		return false, s.mapErr("list", "", err)
	}
	return len(out.Contents) == 0, nil
}
