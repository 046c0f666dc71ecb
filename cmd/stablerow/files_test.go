package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Issue 31 item 4: files without declaring a schema. Each test runs the
// binary.

// writeFiles writes name -> contents under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
}

// cells is tableRows with the padding around each cell dropped.
func cells(out string) [][]string {
	tables := tableRows(out)
	for _, rows := range tables {
		for i, r := range rows {
			f := strings.Split(r, "|")
			for j := range f {
				f[j] = strings.TrimSpace(f[j])
			}
			rows[i] = strings.Join(f, "|")
		}
	}
	return tables
}

// sqlFails runs a script that must fail and returns its stderr.
func sqlFails(t *testing.T, dir, script string) string {
	t.Helper()
	r := cli(t, "", "sql", "-d", dir, "-e", script)
	require.NotEqual(t, 0, r.code, "script succeeded: %s\n%s", script, r.stdout)
	return r.stderr
}

// dbgenCustomer is TPC-H's customer.tbl as dbgen writes it (the first
// rows of scale factor 1): '|' between fields and after the last.
const dbgenCustomer = `1|Customer#000000001|IVhzIApeRb ot,c,E|15|25-989-741-2988|711.56|BUILDING|to the even, regular platelets. regular, ironic epitaphs nag e|
2|Customer#000000002|XSTf4,NCwDVaWNe6tEgvwfmRchLXak|13|23-768-687-3665|121.65|AUTOMOBILE|l accounts. blithely ironic theodolites integrate boldly: caref|
3|Customer#000000003|MG9kdTD2WBHm|1|11-719-748-3364|7498.12|AUTOMOBILE| deposits eat slyly ironic, even instructions. express foxes detect slyly. blithely even accounts abov|
4|Customer#000000004|XxVSJsLAGtn|4|14-128-190-5944|2866.83|MACHINERY| requests. final, regular ideas sleep final accou|
5|Customer#000000005|KvpyuHCplrB84WgAiGV6sYpZq7Tj|3|13-750-942-6364|794.47|HOUSEHOLD|n accounts will have to unwind. foxes cajole accor|
`

// TestCLIReadCSVDetects: read_csv and read_csv_auto detect the header,
// the delimiter (, | ; tab), quoting, the column types and dbgen's
// trailing '|'; named options override what they name.
func TestCLIReadCSVDetects(t *testing.T) {
	dir := newDB(t)
	f := t.TempDir()
	writeFiles(t, f, map[string]string{
		"sales.csv":    "id,item,price,sold_on,paid\n1,apple,1.5,2024-01-02,true\n2,\"pear, big\",2,2024-02-03,false\n3,,3.25,,\n",
		"semi.txt":     "a;b\n1;x\n2;y\n",
		"tabs.tsv":     "k\tv\n10\t\"q\tr\"\n",
		"customer.tbl": dbgenCustomer,
	})
	out := mustSQL(t, dir, fmt.Sprintf(`SELECT id + 1, item, price * 2, sold_on + 1, NOT paid FROM read_csv('%[1]s/sales.csv') ORDER BY id;
SELECT sum(a), max(b) FROM read_csv_auto('%[1]s/semi.txt');
SELECT k * 2, v FROM read_csv('%[1]s/tabs.tsv');
SELECT count(*), sum(column0), max(column5), min(column6) FROM read_csv('%[1]s/customer.tbl');
SELECT count(*) FROM read_csv('%[1]s/customer.tbl', delim := '|', header := true);
SELECT c_custkey, c_acctbal FROM read_csv('%[1]s/customer.tbl', names := ARRAY['c_custkey','c_name','c_address','c_nationkey','c_phone','c_acctbal','c_mktsegment','c_comment'], types := ARRAY['text','text','text','bigint','text','text','text','text']) WHERE c_custkey = '3'`, f))
	require.Equal(t, [][]string{
		{"2|apple|3|2024-01-03|false", "3|pear, big|4|2024-02-04|true", "4|NULL|6.5|NULL|NULL"},
		{"3|y"},
		{"20|q\tr"},
		{"5|15|7498.12|AUTOMOBILE"},
		{"4"},
		{"3|7498.12"},
	}, cells(out), out)
}

// TestCLIReadCSVLaterRowDoesNotFit: a row past the sniffer's sample that
// does not fit its column's type fails the statement, naming the file,
// the line and the column; a bad option is a typed error.
func TestCLIReadCSVLaterRowDoesNotFit(t *testing.T) {
	dir := newDB(t)
	f := t.TempDir()
	var b strings.Builder
	b.WriteString("id,v\n")
	for i := 0; i < 30000; i++ {
		fmt.Fprintf(&b, "%d,%d\n", i, i)
	}
	b.WriteString("30000,oops\n")
	writeFiles(t, f, map[string]string{"big.csv": b.String()})
	msg := sqlFails(t, dir, fmt.Sprintf("SELECT sum(v) FROM read_csv('%s/big.csv')", f))
	require.Contains(t, msg, "big.csv")
	require.Contains(t, msg, `line 30002, column "v"`)
	require.Contains(t, msg, `invalid input syntax for type bigint: "oops"`)
	// With all_varchar nothing is typed, so every row reads.
	out := mustSQL(t, dir, fmt.Sprintf("SELECT count(*), max(v) FROM read_csv('%s/big.csv', all_varchar := true)", f))
	require.Equal(t, [][]string{{"30001|oops"}}, cells(out))
	msg = sqlFails(t, dir, fmt.Sprintf("SELECT * FROM read_csv('%s/big.csv', delim := 'ab')", f))
	require.Contains(t, msg, "delim must be a single one-byte character")
	msg = sqlFails(t, dir, fmt.Sprintf("SELECT * FROM read_csv('%s/big.csv', bogus := 1)", f))
	require.Contains(t, msg, `read_csv option "bogus"`)
}

// TestCLIFromFileName: a file name where a table goes reads the file by
// its extension (.parquet, .csv, .tsv, .tbl), named after the file unless
// aliased; FROM in substring() and COPY keep their meaning, and an error
// in the statement points into the text as typed.
func TestCLIFromFileName(t *testing.T) {
	dir := newDB(t)
	f := t.TempDir()
	writeFiles(t, f, map[string]string{
		"items.csv":    "id,name\n1,apple\n2,pear\n",
		"customer.tbl": dbgenCustomer,
	})
	mustSQL(t, dir, fmt.Sprintf("COPY (SELECT id, name || '!' AS shout FROM read_csv('%[1]s/items.csv')) TO '%[1]s/items.parquet'", f))
	out := mustSQL(t, dir, fmt.Sprintf(`SELECT items.id, shout, c.column1 FROM '%[1]s/items.parquet' JOIN '%[1]s/customer.tbl' AS c ON items.id = c.column0 ORDER BY 1;
SELECT count(*) FROM '%[1]s/items.csv', '%[1]s/items.csv' x WHERE position('p' in substring(x.name from 1 for 2)) > 0;
SELECT name FROM (SELECT * FROM '%[1]s/items.csv') s WHERE id = 2`, f))
	require.Equal(t, [][]string{
		{"1|apple!|Customer#000000001", "2|pear!|Customer#000000002"},
		{"4"},
		{"pear"},
	}, cells(out), out)
	// An error after the rewritten name points at the user's own column.
	stmt := fmt.Sprintf("SELECT nosuch FROM '%s/items.csv'", f)
	msg := sqlFails(t, dir, stmt)
	require.Contains(t, msg, "\n"+strings.Repeat(" ", len("LINE 1: SELECT "))+"^", msg)
	// A missing file names the file and points at the string.
	stmt = fmt.Sprintf("SELECT 1 FROM\n  '%s/missing.csv'", f)
	msg = sqlFails(t, dir, stmt)
	require.Contains(t, msg, "missing.csv")
	require.Contains(t, msg, "LINE 2:", msg)
}

// TestCLIFileGlobs: read_parquet and read_csv (and a file name in FROM)
// take *, ? and [...]; no match names the pattern; files of one glob must
// have the same columns.
func TestCLIFileGlobs(t *testing.T) {
	dir := newDB(t)
	f := t.TempDir()
	writeFiles(t, f, map[string]string{
		"csv/part-1.csv": "k,v\n1,a\n2,b\n",
		"csv/part-2.csv": "k,v\n3,c\n",
		"csv/other.csv":  "k,w\n9,z\n",
		"csv/sub/x.csv":  "k,v\n100,q\n",
	})
	require.NoError(t, os.Mkdir(filepath.Join(f, "pq"), 0o755))
	mustSQL(t, dir, fmt.Sprintf(`COPY (SELECT 1::bigint AS k) TO '%[1]s/pq/a1.parquet';
COPY (SELECT 2::bigint AS k) TO '%[1]s/pq/a2.parquet';
COPY (SELECT 'x' AS k) TO '%[1]s/pq/b1.parquet'`, f))
	out := mustSQL(t, dir, fmt.Sprintf(`SELECT count(*), sum(k) FROM read_csv('%[1]s/csv/part-*.csv');
SELECT min(v) || max(v) FROM '%[1]s/csv/part-?.csv';
SELECT sum(k) FROM read_parquet('%[1]s/pq/a*.parquet');
SELECT count(*) FROM '%[1]s/pq/[a]?.parquet'`, f))
	require.Equal(t, [][]string{{"3|6"}, {"ac"}, {"3"}, {"2"}}, cells(out), out)
	msg := sqlFails(t, dir, fmt.Sprintf("SELECT * FROM read_parquet('%s/pq/z*.parquet')", f))
	require.Contains(t, msg, "no file matches")
	require.Contains(t, msg, "z*.parquet")
	msg = sqlFails(t, dir, fmt.Sprintf("SELECT * FROM read_parquet('%s/pq/*.parquet')", f))
	require.Contains(t, msg, "must have the same columns")
	msg = sqlFails(t, dir, fmt.Sprintf("SELECT * FROM read_csv('%s/csv/*.csv')", f))
	require.Contains(t, msg, "must have the same columns")
}

// TestCLICreateTableAsFromFiles: CREATE TABLE AS from read_csv, a file
// name and a glob keeps the detected types.
func TestCLICreateTableAsFromFiles(t *testing.T) {
	dir := newDB(t)
	f := t.TempDir()
	writeFiles(t, f, map[string]string{"customer.tbl": dbgenCustomer, "d/1.csv": "n,day\n1,2024-03-01\n", "d/2.csv": "n,day\n2,2024-03-02\n"})
	mustSQL(t, dir, fmt.Sprintf(`CREATE TABLE customer AS SELECT * FROM read_csv('%[1]s/customer.tbl', names := ARRAY['c_custkey','c_name','c_address','c_nationkey','c_phone','c_acctbal','c_mktsegment','c_comment']);
COPY customer TO '%[1]s/customer.parquet';
CREATE TABLE c2 AS SELECT * FROM '%[1]s/customer.parquet';
CREATE TABLE days AS SELECT * FROM '%[1]s/d/*.csv'`, f))
	out := mustSQL(t, dir, `SELECT c_custkey + 1, c_acctbal / 2 FROM customer WHERE c_nationkey = 15;
SELECT count(*), sum(c_acctbal) = (SELECT sum(c_acctbal) FROM customer) FROM c2;
SELECT max(day) + 1, sum(n) FROM days`)
	require.Equal(t, [][]string{{"2|355.78"}, {"5|true"}, {"2024-03-03|3"}}, cells(out), out)
}

// TestCLICopyTrailingDelimiterAndHeader: COPY's TRAILING_DELIMITER reads
// and writes dbgen's .tbl lines, and AUTO_DETECT tells a header line from
// data by the table's column types.
func TestCLICopyTrailingDelimiterAndHeader(t *testing.T) {
	dir := newDB(t)
	f := t.TempDir()
	writeFiles(t, f, map[string]string{
		"customer.tbl": dbgenCustomer,
		"with.csv":     "k,s\n1,x\n",
		"without.csv":  "2,y\n",
	})
	out := mustSQL(t, dir, fmt.Sprintf(`CREATE TABLE customer (c_custkey BIGINT, c_name TEXT, c_address TEXT, c_nationkey BIGINT, c_phone TEXT, c_acctbal DOUBLE PRECISION, c_mktsegment TEXT, c_comment TEXT);
COPY customer FROM '%[1]s/customer.tbl' WITH (DELIMITER '|', TRAILING_DELIMITER);
COPY customer TO '%[1]s/out.tbl' WITH (DELIMITER '|', TRAILING_DELIMITER true);
COPY a FROM '%[1]s/with.csv' WITH (AUTO_DETECT);
COPY a FROM '%[1]s/without.csv' WITH (AUTO_DETECT);
SELECT count(*), sum(c_acctbal) FROM customer;
SELECT k, s FROM a ORDER BY k`, f))
	rows := cells(out)
	require.Equal(t, [][]string{{"5|11992.63"}, {"1|x", "2|y"}}, rows, out)
	b, err := os.ReadFile(filepath.Join(f, "out.tbl"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(b), "1|Customer#000000001|IVhzIApeRb ot,c,E|15|25-989-741-2988|711.56|BUILDING|"), string(b))
	require.True(t, strings.HasSuffix(string(b), "|\n"), string(b))
	// Without the option the trailing field is one column too many.
	msg := sqlFails(t, dir, fmt.Sprintf("COPY customer FROM '%s/customer.tbl' WITH (DELIMITER '|')", f))
	require.Contains(t, msg, "extra data after last expected column")
}

// TestServeFileGlobPolicy: under serve -files DIR a glob reaches exactly
// the files its names would: inside DIR it reads, and a pattern that
// escapes (.., absolute, through a symlinked directory, or matching a
// symlink or a hard link to a file outside) is PermissionDenied.
func TestServeFileGlobPolicy(t *testing.T) {
	base := t.TempDir()
	files := filepath.Join(base, "files")
	writeFiles(t, base, map[string]string{
		"secret.csv":       "k\n42\n",
		"outside/x.csv":    "k\n7\n",
		"files/in/a.csv":   "k\n1\n",
		"files/in/b.csv":   "k\n2\n",
		"files/lnk/ok.csv": "k\n3\n",
	})
	require.NoError(t, os.Symlink(filepath.Join(base, "outside"), filepath.Join(files, "updir")))
	require.NoError(t, os.Symlink(filepath.Join(base, "secret.csv"), filepath.Join(files, "lnk", "s.csv")))
	require.NoError(t, os.Mkdir(filepath.Join(files, "hard"), 0o755))
	require.NoError(t, os.Link(filepath.Join(base, "secret.csv"), filepath.Join(files, "hard", "h.csv")))
	ctx := context.Background()
	addr, _ := serveLogged(t, nil, "-d", filepath.Join(base, "db"), "-create", "-files", files)
	cl := flightClient(t, addr)
	info, err := cl.Execute(ctx, "SELECT sum(k) FROM 'in/*.csv'")
	require.NoError(t, err)
	require.Len(t, info.Endpoint, 1)
	for _, q := range []string{
		"SELECT * FROM read_csv('../*.csv')",
		"SELECT * FROM read_csv('in/../../*.csv')",
		"SELECT * FROM read_csv('" + base + "/*.csv')",
		"SELECT * FROM 'updir/*.csv'",
		"SELECT * FROM 'lnk/*.csv'",
		"SELECT * FROM 'hard/*.csv'",
		"SELECT * FROM read_parquet('../*.parquet')",
		"SELECT * FROM read_csv_auto('../secret.csv')",
		"SELECT * FROM '../secret.csv'",
	} {
		_, err := cl.Execute(ctx, q)
		require.Equal(t, codes.PermissionDenied, status.Code(err), "%s: %v", q, err)
	}
	// CREATE TABLE AS reads its files under the same policy: inside it
	// loads, outside it is refused and creates nothing.
	n, err := cl.ExecuteUpdate(ctx, "CREATE TABLE inside AS SELECT * FROM read_csv_auto('in/*.csv')")
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	for _, q := range []string{
		"CREATE TABLE leak AS SELECT * FROM '../secret.csv'",
		"CREATE TABLE leak AS SELECT * FROM read_csv('updir/x.csv')",
		"CREATE TABLE leak AS SELECT * FROM read_csv_auto('hard/*.csv')",
	} {
		_, err := cl.ExecuteUpdate(ctx, q)
		require.Equal(t, codes.PermissionDenied, status.Code(err), "%s: %v", q, err)
	}
	_, err = cl.Execute(ctx, "SELECT * FROM leak")
	require.Error(t, err, "a refused CREATE TABLE AS created its table")
}
