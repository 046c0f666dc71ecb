package memlimit

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/stablerow/stablerow/errkind"
)

// ErrBadSize: a memory size that ParseSize cannot read.
var ErrBadSize = errkind.New(errkind.InvalidArgument, "invalid memory size")

// units are PostgreSQL's memory units (case-sensitive, 1024-based, as
// PostgreSQL reads work_mem: "Valid units for this parameter are B, kB,
// MB, GB, and TB").
var units = []struct {
	name  string
	bytes int64
}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}}

// ParseSize reads a memory size as PostgreSQL writes one: an integer and
// an optional unit (B, kB, MB, GB, TB), spaces allowed between them, e.g.
// '256MB' or '1 GB'. A bare integer is bytes. 0, ”, 'unlimited' and
// 'none' are no limit (0). Anything else, and sizes past 2^63-1 bytes,
// are ErrBadSize.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "", "unlimited", "none":
		return 0, nil
	}
	num, mult := t, int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.name) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(t, u.name)), u.bytes
			break
		}
	}
	if num == "" || strings.IndexFunc(num, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return 0, fmt.Errorf("%w: %q (an integer and a unit B, kB, MB, GB or TB)", ErrBadSize, s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%w: %q is too large", ErrBadSize, s)
	}
	return n * mult, nil
}

// FormatSize writes n bytes in the largest unit that divides it, as
// ParseSize reads it back ("256MB", "1536kB", "0B" for no limit as 0).
func FormatSize(n int64) string {
	for _, u := range units {
		if n != 0 && n%u.bytes == 0 {
			return strconv.FormatInt(n/u.bytes, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
