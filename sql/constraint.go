package sql

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// constraints gathers CREATE TABLE's PRIMARY KEY and UNIQUE constraints,
// of columns and of the table, in the order written. Each becomes a
// unique index created with the table, as PostgreSQL's
// transformIndexConstraints does: named the constraint's name, else
// <table>_pkey and <table>_<columns>_key (ChooseConstraintName, a number
// added to a name taken); a primary key's columns are NOT NULL and a
// table has at most one.
type constraints struct {
	table string
	list  []constraint
}

type constraint struct {
	primary bool
	name    string
	columns []string
}

// add records cn; columns names the column of a column constraint (nil
// for a table constraint, whose keys name them).
func (c *constraints) add(cn *pg_query.Constraint, columns []string) error {
	kind := cn.GetContype()
	if kind != pg_query.ConstrType_CONSTR_PRIMARY && kind != pg_query.ConstrType_CONSTR_UNIQUE {
		return fmt.Errorf("%w: table constraint %s", ErrUnsupported, strings.TrimPrefix(kind.String(), "CONSTR_"))
	}
	switch {
	case cn.Deferrable || cn.Initdeferred:
		return fmt.Errorf("%w: DEFERRABLE constraints", ErrUnsupported)
	case cn.NullsNotDistinct:
		return fmt.Errorf("%w: UNIQUE NULLS NOT DISTINCT", ErrUnsupported)
	case len(cn.Including) > 0 || len(cn.Options) > 0 || cn.Indexspace != "" || cn.Indexname != "":
		return fmt.Errorf("%w: constraint index options", ErrUnsupported)
	}
	if columns == nil {
		for _, k := range cn.Keys {
			columns = append(columns, k.GetString_().GetSval())
		}
	}
	primary := kind == pg_query.ConstrType_CONSTR_PRIMARY
	for _, x := range c.list {
		if primary && x.primary {
			return fmt.Errorf("%w: multiple primary keys for table %q are not allowed", ErrInvalid, c.table)
		}
	}
	c.list = append(c.list, constraint{primary: primary, name: cn.Conname, columns: columns})
	return nil
}

// indexes returns the constraints' unique indexes over the table's
// fields, making a primary key's columns NOT NULL, and the name of the
// primary key's index (empty without one).
func (c *constraints) indexes(fields []arrow.Field) (_ []*CreateIndex, primary string, _ error) {
	var out []*CreateIndex
	taken := map[string]bool{}
	for _, x := range c.list {
		keys := make([]IndexKey, len(x.columns))
		for i, col := range x.columns {
			j := -1
			for k, f := range fields {
				if strings.EqualFold(f.Name, col) {
					j = k
					break
				}
			}
			if j < 0 {
				return nil, "", fmt.Errorf("%w: column %q named in key does not exist", ErrUnknownColumn, col)
			}
			keys[i] = IndexKey{Column: fields[j].Name}
			if x.primary {
				fields[j].Nullable = false
			}
		}
		name := x.name
		if name == "" {
			if x.primary {
				name = chooseName(c.table+"_pkey", taken)
			} else {
				names := make([]string, len(keys))
				for i, k := range keys {
					names[i] = k.Column
				}
				name = chooseName(c.table+"_"+strings.Join(names, "_")+"_key", taken)
			}
		} else if taken[name] {
			return nil, "", fmt.Errorf("%w: relation %q already exists", ErrInvalid, name)
		}
		taken[name] = true
		if x.primary {
			primary = name
		}
		out = append(out, &CreateIndex{Name: name, Table: c.table, Column: keys[0].Column, Keys: keys, Unique: true, Method: "btree"})
	}
	return out, primary, nil
}

// chooseName is name, or name with the least number appended that is not
// taken (PostgreSQL's ChooseRelationName).
func chooseName(name string, taken map[string]bool) string {
	if !taken[name] {
		return name
	}
	for i := 1; ; i++ {
		if n := name + strconv.Itoa(i); !taken[n] {
			return n
		}
	}
}
