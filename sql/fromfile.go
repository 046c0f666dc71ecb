package sql

import (
	"path"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// A file name in FROM: `SELECT ... FROM 'sales.parquet'` and `FROM
// 'x.csv'` read the file as read_parquet('sales.parquet') and
// read_csv('x.csv') would, as DuckDB's replacement scans do. PostgreSQL's
// grammar has no string constant in FROM, so the scanner pass before the
// parser (rewrite) wraps such a constant in the table function its
// extension names, and names the table after the file (DuckDB's alias:
// the name without directory and extension) when no alias follows. The
// rewrite is recorded as shifts, so every position an error names is
// still one of the caller's text: the function's position is the
// string's.

// fileScan is how a string constant in FROM is rewritten: fn(string)
// [AS alias].
type fileScan struct {
	fn, alias string
}

// fileFunctions maps a file name's extension to the table function that
// reads it.
var fileFunctions = map[string]string{
	".parquet": "read_parquet", ".pq": "read_parquet",
	".csv": "read_csv", ".tsv": "read_csv", ".tbl": "read_csv",
}

// fileScans finds the string constants that stand where a table does:
// the first item after a SELECT's FROM, after JOIN, or after a comma of a
// FROM list, at the parenthesis depth of that SELECT. A FROM is a
// SELECT's only when a SELECT came first at its depth and it does not
// follow DISTINCT, so the FROM of substring(x FROM 'p'), trim(... FROM
// ...), extract(... FROM ...), a IS DISTINCT FROM 'b', COPY t FROM 'file'
// and DELETE FROM keeps its meaning. A constant whose
// extension names no reader is left to the parser (a syntax error, as in
// PostgreSQL).
func fileScans(toks []*pg_query.ScanToken, text string) map[int]fileScan {
	type frame struct{ selected, inFrom bool }
	stack := []frame{{}}
	var out map[int]fileScan
	for i, t := range toks {
		top := &stack[len(stack)-1]
		switch t.Token {
		case pg_query.Token_ASCII_40: // (
			stack = append(stack, frame{})
			continue
		case pg_query.Token_ASCII_41: // )
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			continue
		case pg_query.Token_ASCII_59: // ; a new statement
			stack = append(stack[:0], frame{})
			continue
		case pg_query.Token_SELECT:
			top.selected, top.inFrom = true, false
			continue
		case pg_query.Token_WHERE, pg_query.Token_GROUP_P, pg_query.Token_HAVING, pg_query.Token_WINDOW,
			pg_query.Token_ORDER, pg_query.Token_LIMIT, pg_query.Token_OFFSET, pg_query.Token_FETCH,
			pg_query.Token_FOR, pg_query.Token_UNION, pg_query.Token_INTERSECT, pg_query.Token_EXCEPT,
			pg_query.Token_RETURNING, pg_query.Token_INTO:
			top.inFrom = false
			continue
		}
		opens := false
		switch t.Token {
		case pg_query.Token_FROM:
			// IS [NOT] DISTINCT FROM is an operator, not a clause.
			if top.selected && (i == 0 || toks[i-1].Token != pg_query.Token_DISTINCT) {
				top.inFrom = true
				opens = true
			}
		case pg_query.Token_JOIN, pg_query.Token_ASCII_44: // JOIN ,
			opens = top.inFrom
		}
		if !opens || i+1 >= len(toks) || toks[i+1].Token != pg_query.Token_SCONST {
			continue
		}
		s := toks[i+1]
		name, ok := stringValue(text[s.Start:s.End])
		if !ok {
			continue
		}
		ext := strings.ToLower(path.Ext(name))
		fn, ok := fileFunctions[ext]
		if !ok {
			continue
		}
		fs := fileScan{fn: fn}
		if i+2 >= len(toks) || !startsAlias(toks[i+2]) {
			if stem := strings.TrimSuffix(path.Base(name), path.Ext(name)); stem != "" && stem != "." && !strings.ContainsAny(stem, "*?[") {
				fs.alias = stem
			}
		}
		if out == nil {
			out = map[int]fileScan{}
		}
		out[i+1] = fs
	}
	return out
}

// startsAlias reports whether a token after a FROM item begins its alias
// (PostgreSQL's alias_clause: AS, or a ColId: an identifier or an
// unreserved or column-name keyword).
func startsAlias(t *pg_query.ScanToken) bool {
	switch {
	case t.Token == pg_query.Token_AS, t.Token == pg_query.Token_IDENT:
		return true
	}
	return t.KeywordKind == pg_query.KeywordKind_UNRESERVED_KEYWORD || t.KeywordKind == pg_query.KeywordKind_COL_NAME_KEYWORD
}

// stringValue is the value of a plain '...' or $tag$...$tag$ string
// token; an escape string (E'...') is not read here (ok false).
func stringValue(tok string) (string, bool) {
	switch {
	case len(tok) >= 2 && tok[0] == '\'' && tok[len(tok)-1] == '\'':
		return strings.ReplaceAll(tok[1:len(tok)-1], "''", "'"), true
	case strings.HasPrefix(tok, "$"):
		end := strings.IndexByte(tok[1:], '$')
		if end < 0 {
			return "", false
		}
		tag := tok[:end+2]
		if len(tok) < 2*len(tag) || !strings.HasSuffix(tok, tag) {
			return "", false
		}
		return tok[len(tag) : len(tok)-len(tag)], true
	}
	return "", false
}
