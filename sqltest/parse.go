package sqltest

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Kind of a record.
type Kind int

const (
	KindStatement Kind = iota
	KindQuery
	KindBind
)

// Record is one directive of a test file.
type Record struct {
	Kind    Kind
	Line    int    // line of the directive, for messages
	Header  string // the directive line as written
	SQL     string
	Error   bool   // statement/query error expected
	ErrText string // substring the error must contain
	Types   string // query column types
	RowSort bool
	Expect  []string // expected result lines
	Skip    string   // "noindex": skip without indexes; "index": skip with
	Comment []string // comment lines before the record, kept by -rewrite
	// Bind
	Param string
	Args  []string
}

// Parse reads a test file.
func Parse(r io.Reader) ([]*Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var recs []*Record
	skip := ""
	var comment []string
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if strings.HasPrefix(line, "#") {
			comment = append(comment, line)
			continue
		}
		if line == "" {
			if len(comment) > 0 {
				comment = append(comment, "")
			}
			continue
		}
		f := strings.Fields(line)
		switch f[0] {
		case "skipif", "onlyif":
			if len(f) != 2 || (f[1] != "noindex" && f[1] != "index" && f[1] != "parallel" && f[1] != "serial") {
				return nil, fmt.Errorf("line %d: %s takes index, noindex, parallel or serial", i+1, f[0])
			}
			// skipif X: skip in X runs; onlyif X: skip in the other runs.
			skip = f[1]
			if f[0] == "onlyif" {
				skip = map[string]string{"noindex": "index", "index": "noindex", "parallel": "serial", "serial": "parallel"}[f[1]]
			}
			continue
		case "bind":
			if len(f) < 2 {
				return nil, fmt.Errorf("line %d: bind needs a parameter name", i+1)
			}
			recs = append(recs, &Record{Kind: KindBind, Line: i + 1, Header: line, Param: f[1], Args: f[2:], Skip: skip, Comment: comment})
			skip, comment = "", nil
			continue
		case "statement", "query":
		default:
			return nil, fmt.Errorf("line %d: unknown directive %q", i+1, f[0])
		}
		rec := &Record{Line: i + 1, Header: line, Skip: skip, Comment: comment}
		skip, comment = "", nil
		if f[0] == "statement" {
			rec.Kind = KindStatement
			if len(f) < 2 || (f[1] != "ok" && f[1] != "error") {
				return nil, fmt.Errorf("line %d: statement ok|error", i+1)
			}
			rec.Error = f[1] == "error"
		} else {
			rec.Kind = KindQuery
			if len(f) < 2 {
				return nil, fmt.Errorf("line %d: query needs column types or error", i+1)
			}
			if f[1] == "error" {
				rec.Error = true
			} else {
				rec.Types = f[1]
				rec.RowSort = len(f) > 2 && f[2] == "rowsort"
			}
		}
		if rec.Error {
			_, after, _ := strings.Cut(line, " error")
			rec.ErrText = strings.TrimSpace(after)
		}
		// SQL until a blank line or "----".
		var sql []string
		i++
		for ; i < len(lines) && strings.TrimSpace(lines[i]) != "" && strings.TrimSpace(lines[i]) != "----"; i++ {
			sql = append(sql, lines[i])
		}
		rec.SQL = strings.Join(sql, "\n")
		if rec.SQL == "" {
			return nil, fmt.Errorf("line %d: %s without SQL", rec.Line, f[0])
		}
		if i < len(lines) && strings.TrimSpace(lines[i]) == "----" {
			if rec.Kind != KindQuery || rec.Error {
				return nil, fmt.Errorf("line %d: ---- only follows a query", i+1)
			}
			i++
			for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
				rec.Expect = append(rec.Expect, strings.TrimRight(lines[i], " "))
			}
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// Format writes records back as a file (used by -rewrite).
func Format(w io.Writer, recs []*Record) error {
	bw := bufio.NewWriter(w)
	for i, r := range recs {
		if i > 0 {
			bw.WriteString("\n")
		}
		for _, c := range r.Comment {
			bw.WriteString(c + "\n")
		}
		switch r.Skip {
		case "noindex":
			bw.WriteString("skipif noindex\n")
		case "index":
			bw.WriteString("onlyif noindex\n")
		case "parallel":
			bw.WriteString("skipif parallel\n")
		case "serial":
			bw.WriteString("onlyif parallel\n")
		}
		bw.WriteString(r.Header + "\n")
		if r.Kind == KindBind {
			continue
		}
		bw.WriteString(r.SQL + "\n")
		if r.Kind == KindQuery && !r.Error {
			bw.WriteString("----\n")
			for _, l := range r.Expect {
				bw.WriteString(l + "\n")
			}
		}
	}
	return bw.Flush()
}
