package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

// ErrUnknownConstraint: ALTER TABLE ... DROP CONSTRAINT of a name the
// table has no CHECK constraint of (PostgreSQL's 42704).
var ErrUnknownConstraint = errkind.Category(errkind.NotFound, "engine: unknown constraint")

// alterConstraint runs ALTER TABLE ... ADD CHECK / DROP CONSTRAINT. ADD
// first tests the check over every row of the snapshot it commits on
// (PostgreSQL's validateCheckConstraint: 'check constraint "c" of
// relation "t" is violated by some row', 23514); a write that adds rows
// concurrently makes one of the two fail (table.ChangeConstraints).
func (db *DB) alterConstraint(ctx context.Context, cat *catalog, s *sql.AlterConstraint) error {
	t, err := cat.target(s.Table)
	if err != nil {
		return err
	}
	if s.Add != nil {
		if err := db.validateCheck(ctx, cat, s); err != nil {
			return err
		}
		_, err = t.ChangeConstraints(ctx, func(c *table.Constraints) error {
			if slices.ContainsFunc(c.Checks, func(k table.Check) bool { return k.Name == s.Add.Name }) {
				return fmt.Errorf("%w: constraint %q for relation %q already exists", table.ErrConflict, s.Add.Name, s.Table)
			}
			c.Checks = append(c.Checks, table.Check{Name: s.Add.Name, Expr: s.Add.Expr})
			return nil
		})
		return err
	}
	if !slices.ContainsFunc(t.Constraints().Checks, func(k table.Check) bool { return k.Name == s.Drop }) {
		if t.Index(s.Drop) != nil {
			return fmt.Errorf("%w: DROP CONSTRAINT of the PRIMARY KEY or UNIQUE constraint %q (DROP INDEX drops its index)", ErrUnsupported, s.Drop)
		}
		if s.MissingOK {
			return nil
		}
		return fmt.Errorf("%w: constraint %q of relation %q does not exist", ErrUnknownConstraint, s.Drop, s.Table)
	}
	_, err = t.ChangeConstraints(ctx, func(c *table.Constraints) error {
		i := slices.IndexFunc(c.Checks, func(k table.Check) bool { return k.Name == s.Drop })
		if i < 0 {
			return fmt.Errorf("%w: constraint %q was dropped concurrently", table.ErrConflict, s.Drop)
		}
		c.Checks = slices.Delete(c.Checks, i, i+1)
		return nil
	})
	return err
}

// validateCheck runs s.Validate (every row, the check's value last) and
// fails on the first row whose value is FALSE.
func (db *DB) validateCheck(ctx context.Context, cat *catalog, s *sql.AlterConstraint) error {
	rows, err := db.startQuery(serialPlan(ctx), cat, s.Validate, nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		b := rows.Batch()
		if err := checkFailed(s.Table, []string{s.Add.Name}, b.Columns()[b.NumCols()-1:]); err != nil {
			return fmt.Errorf("%w: check constraint %q of relation %q is violated by some row", ErrCheckViolation, s.Add.Name, s.Table)
		}
	}
	return rows.Close()
}
