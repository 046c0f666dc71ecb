package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/stablerow/stablerow/plan"
)

// paramFlags collects -p name=VALUES (repeatable). VALUES is one value,
// bound as text of no type (plan.TextParam): the statement's use of the
// parameter types it, as PostgreSQL types a text-format parameter or an
// unknown literal, so `SELECT $1` with -p 1=5 is the text 5 and `k = $1`
// the bigint 5 (psql's -v variables are text too); where the plan unnests
// a list it is the list of one. Integers separated by commas are a list
// ("5," is the list of one), and @FILE a list read from a file, one id a
// line or comma-separated, for lists too long for a command line.
type paramFlags map[string]any

func (p paramFlags) String() string { return fmt.Sprint(map[string]any(p)) }

func (p paramFlags) Set(s string) error {
	name, vals, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=v1,v2,... or name=@file, got %q", s)
	}
	if path, ok := strings.CutPrefix(vals, "@"); ok {
		list, err := readIntsFile(name, path)
		if err != nil {
			return err
		}
		p[name] = list
		return nil
	}
	if !strings.Contains(vals, ",") {
		p[name] = plan.TextParam(vals)
		return nil
	}
	list, err := parseInts(name, vals)
	if err != nil {
		return err
	}
	p[name] = list
	return nil
}

// parseInts reads integers separated by commas and/or white space
// (newlines included); empty fields are skipped.
func parseInts(name, text string) ([]int64, error) {
	return scanInts(name, strings.NewReader(text), nil)
}

// readIntsFile reads the list of -p name=@path as parseInts reads text,
// streaming: the file is never held whole, nor split into a string per
// value (for 10M ids the text is 80 MB and the strings 160 MB more, which
// the collector's pacing then doubled: the CLI peaked at 850 MB on the
// parameter alone). A regular file is read twice, first to count the
// values, so the list is allocated once at its length (8 bytes a value); a
// pipe is read once into a growing list.
func readIntsFile(name, path string) ([]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("parameter %s: %w", name, err)
	}
	defer f.Close()
	var list []int64
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		n, err := countFields(f)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", name, err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("parameter %s: %w", name, err)
		}
		list = make([]int64, 0, n)
	}
	list, err = scanInts(name, f, list)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return list, nil
}

// maxField bounds one value's text; a longer field is not an integer.
const maxField = 1 << 16

// errFieldTooLong is a field of more than maxField bytes.
var errFieldTooLong = errors.New("a value is longer than 64 KiB")

// scanInts appends to dst the integers of r, separated by commas and/or
// white space; the i-th bad value is named in the error by its position.
func scanInts(name string, r io.Reader, dst []int64) ([]int64, error) {
	sc := newFieldScanner(r)
	for sc.Scan() {
		f := sc.Bytes()
		x, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: value %d, %q, is not a 64-bit integer", name, len(dst)+1, f)
		}
		dst = append(dst, x)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = errFieldTooLong
		}
		return nil, fmt.Errorf("parameter %s: value %d: %w", name, len(dst)+1, err)
	}
	if dst == nil {
		dst = []int64{}
	}
	return dst, nil
}

// countFields counts the fields of r as scanInts splits them.
func countFields(r io.Reader) (int, error) {
	sc := newFieldScanner(r)
	n := 0
	for sc.Scan() {
		n++
	}
	if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
		return 0, err
	}
	// A field too long is reported, at its position, by the parsing pass.
	return n, nil
}

func newFieldScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxField)
	sc.Split(splitFields)
	return sc
}

// isSep reports the separators between values: commas and white space.
func isSep(c byte) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// splitFields is a bufio.SplitFunc returning the fields between separators;
// runs of separators are one (empty fields are skipped).
func splitFields(data []byte, atEOF bool) (advance int, token []byte, err error) {
	start := 0
	for start < len(data) && isSep(data[start]) {
		start++
	}
	for i := start; i < len(data); i++ {
		if isSep(data[i]) {
			return i + 1, data[start:i], nil
		}
	}
	if atEOF && start < len(data) {
		return len(data), data[start:], nil
	}
	return start, nil, nil
}
