package table

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/table/store"
)

// Constraints are a table's declared constraints that the manifest
// records beside its indexes (format version 9; manifest.go): which
// unique index is the PRIMARY KEY, and the CHECK constraints. The table
// layer stores them; the engine enforces them (a unique index by
// itself, a CHECK on every written row) and reports them (Flight SQL's
// GetPrimaryKeys).
type Constraints struct {
	// PrimaryKey names the unique index that backs the PRIMARY KEY;
	// empty when the table has none.
	PrimaryKey string
	// Checks are the CHECK constraints in the order declared.
	Checks []Check
}

// Check is one CHECK constraint: its name (PostgreSQL's, given or
// chosen by ChooseConstraintName) and its boolean expression as SQL
// text over the table's columns.
type Check struct {
	Name string
	Expr string
}

func (c Constraints) empty() bool { return c.PrimaryKey == "" && len(c.Checks) == 0 }

func (c Constraints) encode(e *encoder) {
	e.str(c.PrimaryKey)
	e.uv(uint64(len(c.Checks)))
	for _, k := range c.Checks {
		e.str(k.Name)
		e.str(k.Expr)
	}
}

func decodeConstraints(d *decoder) Constraints {
	c := Constraints{PrimaryKey: d.str("primary key")}
	n := d.count("check count", 2)
	for i := 0; i < n && d.err == nil; i++ {
		c.Checks = append(c.Checks, Check{Name: d.str("check name"), Expr: d.str("check expression")})
	}
	return c
}

// validate refuses constraints no CREATE TABLE declares: a CHECK
// without a name or expression, two CHECKs of one name. The caller
// adds the sentinel: ErrCorrupt for a manifest read, ErrInvalidArgument
// for a table being created.
func (c Constraints) validate() error {
	seen := map[string]bool{}
	for _, k := range c.Checks {
		if k.Name == "" || k.Expr == "" {
			return errors.New("a CHECK constraint without a name or expression")
		}
		if seen[k.Name] {
			return fmt.Errorf("CHECK constraint %q twice", k.Name)
		}
		seen[k.Name] = true
	}
	return nil
}

// Constraints returns the table's declared constraints.
func (t *Table) Constraints() Constraints {
	c := t.m.Constraints
	c.Checks = slices.Clone(c.Checks)
	return c
}

// CreateConstrained is Create of a table with constraints: version 1
// records them, so no version of the table lacks them.
func CreateConstrained(ctx context.Context, st store.Store, schema *arrow.Schema, cons Constraints, opts Options) (*Table, error) {
	if err := checkUserSchema(schema); err != nil {
		return nil, err
	}
	if err := cons.validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	vs, err := listVersions(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("table: create: %w", err)
	}
	if len(vs) > 0 {
		return nil, errorf(ErrExists, "a table already exists here (version %d)", vs[len(vs)-1])
	}
	m := newManifest()
	m.Version = 1
	m.TimestampNanos = time.Now().UnixNano()
	m.Schema = normalizeUserSchema(schema)
	m.Txn = TxnSummary{Kind: "create"}
	m.Constraints = cons
	b, err := m.MarshalBinary()
	if err != nil {
		return nil, err
	}
	if err := st.PutIfAbsent(ctx, manifestPath(1), b); err != nil {
		if errors.Is(err, store.ErrExists) {
			return nil, errorf(ErrExists, "a table already exists here")
		}
		return nil, fmt.Errorf("table: create: %w", err)
	}
	return newTable(st, m, opts), nil
}

// ChangeConstraints commits a version whose constraints are change's
// result on the latest ones (ALTER TABLE ... ADD / DROP CONSTRAINT).
// Such a version and a write that adds rows (append, update) conflict
// when either commits after the other's base (commutes): the rows were
// checked against the constraints their statement read, and a CHECK
// added was validated over the rows its statement read, so of the two
// one fails as ErrConflict, as PostgreSQL's table lock orders them.
func (t *Table) ChangeConstraints(ctx context.Context, change func(*Constraints) error) (*Table, error) {
	mutate := func(_, next *Manifest) error {
		c := next.Constraints
		c.Checks = slices.Clone(c.Checks)
		if err := change(&c); err != nil {
			return err
		}
		if err := c.validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		next.Constraints = c
		return nil
	}
	return t.commit(ctx, &txn{kind: "constraints", base: t.m, mutate: mutate})
}

// writesRows reports whether a commit of kind adds rows whose values a
// CHECK constraint judges (not a rewrite, which moves checked rows).
func writesRows(kind string) bool { return kind == "append" || kind == "update" }
