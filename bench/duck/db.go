package duck

import (
	"fmt"
	"strconv"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// DB is one in-memory DuckDB database and a connection to it.
type DB struct {
	db   mapping.Database
	conn mapping.Connection
}

// Open opens an in-memory database using threads worker threads (0: DuckDB's
// default, the number of cores). Extension auto-install and auto-load are
// off: nothing here may reach the network.
func Open(threads int) (*DB, error) {
	var cfg mapping.Config
	if mapping.CreateConfig(&cfg) == mapping.StateError {
		return nil, fmt.Errorf("%w: create config", ErrDuckDB)
	}
	defer mapping.DestroyConfig(&cfg)
	opts := [][2]string{{"autoinstall_known_extensions", "false"}, {"autoload_known_extensions", "false"}}
	if threads > 0 {
		opts = append(opts, [2]string{"threads", strconv.Itoa(threads)})
	}
	for _, o := range opts {
		if mapping.SetConfig(cfg, o[0], o[1]) == mapping.StateError {
			return nil, fmt.Errorf("%w: set %s=%s", ErrDuckDB, o[0], o[1])
		}
	}
	d := &DB{}
	var msg string
	if mapping.OpenExt("", &d.db, cfg, &msg) == mapping.StateError {
		return nil, fmt.Errorf("%w: open: %s", ErrDuckDB, msg)
	}
	if mapping.Connect(d.db, &d.conn) == mapping.StateError {
		mapping.Close(&d.db)
		return nil, fmt.Errorf("%w: connect", ErrDuckDB)
	}
	return d, nil
}

// Close disconnects and closes the database. It is safe to call twice.
func (d *DB) Close() error {
	mapping.Disconnect(&d.conn)
	mapping.Close(&d.db)
	return nil
}

// Version is DuckDB's library version, e.g. "v1.5.6".
func (d *DB) Version() string { return mapping.LibraryVersion() }

// query runs one statement; the caller destroys the result.
func (d *DB) query(sql string) (*mapping.Result, error) {
	if d.conn.Ptr == nil {
		return nil, ErrClosed
	}
	res := &mapping.Result{}
	if mapping.Query(d.conn, sql, res) == mapping.StateError {
		msg := mapping.ResultError(res)
		mapping.DestroyResult(res)
		return nil, fmt.Errorf("%w: %s: %s", ErrDuckDB, msg, abbrev(sql))
	}
	return res, nil
}

// Exec runs statements that return no rows of interest and reports the rows
// they changed.
func (d *DB) Exec(sql string) (int64, error) {
	res, err := d.query(sql)
	if err != nil {
		return 0, err
	}
	defer mapping.DestroyResult(res)
	return int64(mapping.RowsChanged(res)), nil
}

// abbrev keeps error messages readable when the statement holds a long list.
func abbrev(sql string) string {
	if len(sql) <= 160 {
		return sql
	}
	return sql[:160] + "..."
}
