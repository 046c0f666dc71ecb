package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table/store"
)

// Views (issue 29 item 4) live in the database's root store (beside the
// tables and the transaction records: the local directory, the S3
// prefix, or memory) as a sequence of catalog versions
// .views/<20-digit version>.srvw, each the whole set of views
// (viewrecord.go). CREATE [OR REPLACE] VIEW and DROP VIEW read the
// newest version N and put N+1 with put-if-absent, as a table commit
// claims its next manifest: of two concurrent changes one wins and the
// other reads the new catalog and tries again, so no change is lost and
// a reader, which reads one version, always sees a whole catalog. A
// query expands a view at plan time against the tables' current
// versions (sql/view.go); the view's tables are pinned with the
// statement's (sql.TableNamer). Views are not part of a transaction
// block: CREATE and DROP VIEW are refused inside one, as CREATE TABLE is.

const viewDir = ".views/"

var (
	// ErrDependentObjects: DROP TABLE or DROP VIEW of a relation a view
	// reads (PostgreSQL's 2BP01, "cannot drop ... because other objects
	// depend on it"; there is no CASCADE).
	ErrDependentObjects = errkind.Category(errkind.InvalidArgument, "engine: dependent objects still exist")
	// ErrViewDefinition: CREATE OR REPLACE VIEW that drops, renames or
	// retypes a column of the view (PostgreSQL's 42P16,
	// checkViewColumns).
	ErrViewDefinition = errkind.Category(errkind.InvalidArgument, "engine: invalid table definition")
	// ErrWrongObjectType: DROP VIEW of a table, DROP TABLE of a view
	// (PostgreSQL's 42809).
	ErrWrongObjectType = errkind.Category(errkind.InvalidArgument, "engine: wrong object type")
)

// viewCatalog is one version of the views.
type viewCatalog struct {
	seq   uint64
	views map[string]*sql.ViewDef // by lower-case name
}

func viewPath(seq uint64) string { return fmt.Sprintf("%s%020d.srvw", viewDir, seq) }

// viewSeq is the version a record's path names, ok false for any other
// file (a store's temporary file).
func viewSeq(path string) (uint64, bool) {
	name, ok := strings.CutPrefix(path, viewDir)
	if !ok {
		return 0, false
	}
	digits, ok := strings.CutSuffix(name, ".srvw")
	if !ok || len(digits) != 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	return n, err == nil
}

// loadViews reads the newest version of the views (none: version 0, no
// views). A decoded version is kept: the next statement costs a listing.
func (db *DB) loadViews(ctx context.Context) (*viewCatalog, error) {
	st := db.opt.Table.Txns
	paths, err := st.List(ctx, viewDir)
	if err != nil {
		return nil, fmt.Errorf("engine: views: %w", err)
	}
	var newest uint64
	path := ""
	for _, p := range paths {
		if n, ok := viewSeq(p); ok && n >= newest {
			newest, path = n, p
		}
	}
	if path == "" {
		return &viewCatalog{views: map[string]*sql.ViewDef{}}, nil
	}
	db.mu.Lock()
	cached := db.viewCache
	db.mu.Unlock()
	if cached != nil && cached.seq == newest {
		return cached, nil
	}
	b, err := st.Get(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("engine: views: %w", err)
	}
	views, err := decodeViews(path, newest, b)
	if err != nil {
		return nil, err
	}
	vc := &viewCatalog{seq: newest, views: views}
	db.mu.Lock()
	if db.viewCache == nil || db.viewCache.seq < vc.seq {
		db.viewCache = vc
	}
	db.mu.Unlock()
	return vc, nil
}

// changeViews commits change applied to the newest views as the next
// version, again on the newer one when another writer took it first.
func (db *DB) changeViews(ctx context.Context, change func(views map[string]*sql.ViewDef) error) error {
	for try := 0; ; try++ {
		cur, err := db.loadViews(ctx)
		if err != nil {
			return err
		}
		next := maps.Clone(cur.views)
		if err := change(next); err != nil {
			return err
		}
		b, err := encodeViews(cur.seq+1, next)
		if err != nil {
			return err
		}
		err = db.opt.Table.Txns.PutIfAbsent(ctx, viewPath(cur.seq+1), b)
		if errors.Is(err, store.ErrExists) && try < 100 && ctx.Err() == nil {
			continue
		}
		if err != nil {
			return fmt.Errorf("engine: views: %w", err)
		}
		return nil
	}
}

// dependents are the views other than name that read name.
func dependents(views map[string]*sql.ViewDef, name string) []string {
	var out []string
	for n, v := range views {
		if n != name && slices.ContainsFunc(v.Reads, func(r string) bool { return strings.EqualFold(r, name) }) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func dependentError(kind, name string, deps []string) error {
	return fmt.Errorf("%w: cannot drop %s %s because other objects depend on it (view %s depends on %s %s)", ErrDependentObjects, kind, name, deps[0], kind, name)
}

// createView runs CREATE [OR REPLACE] VIEW.
func (db *DB) createView(ctx context.Context, s *sql.CreateView) error {
	def := s.Def
	if !tableName.MatchString(def.Name) {
		return fmt.Errorf("%w: bad view name %q", ErrUnsupported, def.Name)
	}
	if _, err := db.storeOf(def.Name); err == nil {
		return fmt.Errorf("%w: relation %q already exists", ErrTableExists, def.Name)
	}
	return db.changeViews(ctx, func(views map[string]*sql.ViewDef) error {
		old, ok := views[def.Name]
		switch {
		case ok && !s.Replace:
			return fmt.Errorf("%w: relation %q already exists", ErrTableExists, def.Name)
		case ok:
			if err := checkViewColumns(old, &def); err != nil {
				return err
			}
		}
		views[def.Name] = &def
		return nil
	})
}

// checkViewColumns is PostgreSQL's rule for CREATE OR REPLACE VIEW: the
// new view keeps every column of the old one, in place, by name and
// type, and may add columns after them.
func checkViewColumns(old, def *sql.ViewDef) error {
	if len(def.Columns) < len(old.Columns) {
		return fmt.Errorf("%w: cannot drop columns from view", ErrViewDefinition)
	}
	for i, c := range old.Columns {
		if def.Columns[i] != c {
			return fmt.Errorf("%w: cannot change name of view column %q to %q", ErrViewDefinition, c, def.Columns[i])
		}
		if def.Types[i] != old.Types[i] {
			return fmt.Errorf("%w: cannot change data type of view column %q from %s to %s", ErrViewDefinition, c, old.Types[i], def.Types[i])
		}
	}
	return nil
}

// dropView runs DROP VIEW [IF EXISTS].
func (db *DB) dropView(ctx context.Context, s *sql.DropView) error {
	name := strings.ToLower(s.Name)
	return db.changeViews(ctx, func(views map[string]*sql.ViewDef) error {
		if _, ok := views[name]; !ok {
			if _, err := db.storeOf(name); err == nil {
				return fmt.Errorf("%w: %q is not a view", ErrWrongObjectType, s.Name)
			}
			if s.IfExists {
				return errNoChange
			}
			return fmt.Errorf("%w: view %q does not exist", ErrUnknownTable, s.Name)
		}
		if deps := dependents(views, name); len(deps) > 0 {
			return dependentError("view", name, deps)
		}
		delete(views, name)
		return nil
	})
}

// errNoChange ends a changeViews without a new version.
var errNoChange = errors.New("engine: views: no change")

// checkDropTable refuses DROP TABLE of a view or of a table a view reads.
func (db *DB) checkDropTable(ctx context.Context, name string) error {
	vc, err := db.loadViews(ctx)
	if err != nil {
		return err
	}
	key := strings.ToLower(name)
	if _, ok := vc.views[key]; ok {
		return fmt.Errorf("%w: %q is not a table", ErrWrongObjectType, name)
	}
	if deps := dependents(vc.views, key); len(deps) > 0 {
		return dependentError("table", key, deps)
	}
	return nil
}

// View implements sql.ViewCatalog: the statement reads one version of
// the views, the first time it asks about a name that is not a table the
// database knows. Tables and views share one namespace, so a known
// table is no view, and a statement that names tables only reads no
// view catalog: a take on S3 stays one LIST of its table's versions
// (TestEngineOnS3). A table another process created since is unknown
// here and found as no view, then opened as a table.
func (c *catalog) View(name string) (*sql.ViewDef, bool, error) {
	if _, err := c.db.storeOf(name); err == nil {
		return nil, false, nil
	}
	vc, err := c.viewCatalog()
	if err != nil {
		return nil, false, err
	}
	v, ok := vc.views[strings.ToLower(name)]
	return v, ok, nil
}

// ViewNames implements sql.ViewCatalog.
func (c *catalog) ViewNames() []string {
	vc, err := c.viewCatalog()
	if err != nil {
		return nil
	}
	return slices.Sorted(maps.Keys(vc.views))
}

func (c *catalog) viewCatalog() (*viewCatalog, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.views == nil {
		vc, err := c.db.loadViews(c.ctx)
		if err != nil {
			return nil, err
		}
		c.views = vc
	}
	return c.views, nil
}

// Views lists the database's views, sorted (Flight SQL's GetTables, the
// CLI's \d).
func (db *DB) Views(ctx context.Context) ([]string, error) {
	vc, err := db.loadViews(ctx)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(vc.views)), nil
}

// ViewSchema is the schema of a view's rows, as a query of it plans now.
func (db *DB) ViewSchema(ctx context.Context, name string) (*arrow.Schema, error) {
	d, err := db.Describe(ctx, `SELECT * FROM "`+strings.ToLower(name)+`"`, nil)
	if err != nil {
		return nil, err
	}
	return d.Result, nil
}

// View returns the view named name (any case), ok false if there is none.
func (db *DB) View(ctx context.Context, name string) (def *sql.ViewDef, ok bool, err error) {
	vc, err := db.loadViews(ctx)
	if err != nil {
		return nil, false, err
	}
	def, ok = vc.views[strings.ToLower(name)]
	return def, ok, nil
}
