package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"google.golang.org/protobuf/types/known/structpb"
)

// table resolves a table name once per Build. A name the catalog does not
// know is tried folded to lower and to upper case (Isthmus writes unquoted
// identifiers upper-case, "ORDERS"; the SQL front end folds to lower), and
// resolves when exactly one of those names a table.
func (p *planner) table(name string) (TableProvider, error) {
	if t, ok := p.tables[name]; ok {
		return t, nil
	}
	t, err := p.cat.Table(name)
	if errors.Is(err, ErrUnknownTable) {
		var found []string
		for _, folded := range []string{strings.ToLower(name), strings.ToUpper(name)} {
			if folded == name || slices.Contains(found, folded) {
				continue
			}
			if ft, ferr := p.cat.Table(folded); ferr == nil {
				t, found = ft, append(found, folded)
			} else if !errors.Is(ferr, ErrUnknownTable) {
				return nil, fmt.Errorf("plan: table %q: %w", folded, ferr)
			}
		}
		switch len(found) {
		case 1:
			err = nil
		case 2:
			return nil, fmt.Errorf("%w: table %q is ambiguous: both %q and %q exist", ErrInvalidPlan, name, found[0], found[1])
		}
	}
	if err != nil {
		return nil, fmt.Errorf("plan: table %q: %w", name, err)
	}
	if t == nil || t.Schema() == nil {
		return nil, fmt.Errorf("plan: table %q: %w", name, ErrUnknownTable)
	}
	p.tables[name] = t
	return t, nil
}

// columnOf resolves a base_schema field name to a table column: the column
// of that exact name, else the one column whose name equals it ignoring
// case (a producer that folded case); several such is ambiguous.
func columnOf(sc *arrow.Schema, table, name string) (int, error) {
	if idx := sc.FieldIndices(name); len(idx) == 1 {
		return idx[0], nil
	}
	found := -1
	for i, f := range sc.Fields() {
		if strings.EqualFold(f.Name, name) {
			if found >= 0 {
				return 0, fmt.Errorf("%w: column %q of %q is ambiguous: %q and %q", ErrInvalidPlan, name, table, sc.Field(found).Name, f.Name)
			}
			found = i
		}
	}
	if found < 0 {
		return 0, fmt.Errorf("%w: table %q has no column %q", ErrInvalidPlan, table, name)
	}
	return found, nil
}

// maskColumns returns, for each field a read produces before its emit
// mapping, the base schema field it reads: the projection mask, or all.
// A mask over the top-level record keeps a record whatever
// maintain_singular_struct says (DuckDB sets it), so the flag is moot there.
func maskColumns(r splan.ReadRel) ([]int, error) {
	n := len(r.BaseSchema().Struct.Types)
	m := r.Projection()
	if m == nil {
		cols := make([]int, n)
		for i := range cols {
			cols[i] = i
		}
		return cols, nil
	}
	sel := m.Select()
	cols := make([]int, len(sel))
	for i, item := range sel {
		if item.Child() != nil {
			return nil, fmt.Errorf("%w: nested projection mask", errUnsupported("read"))
		}
		f := int(item.Field())
		if f < 0 || f >= n {
			return nil, fmt.Errorf("%w: projection mask field %d of %d", ErrInvalidPlan, f, n)
		}
		cols[i] = f
	}
	return cols, nil
}

// namedTable resolves a NamedTable read: its provider and, per output field
// before the emit mapping, the table column it reads.
func (p *planner) namedTable(r *splan.NamedTableReadRel) (TableProvider, []int, error) {
	t, _, cols, err := p.namedTableBase(r)
	return t, cols, err
}

// namedTableBase is namedTable that also returns the table column each
// base_schema field names. The base schema names table columns by name,
// in any order, all or some of them (an outside producer lists the user
// columns only, not _rowid and _rowaddr).
func (p *planner) namedTableBase(r *splan.NamedTableReadRel) (TableProvider, []int, []int, error) {
	names := r.Names()
	if len(names) != 1 {
		return nil, nil, nil, fmt.Errorf("%w: table name %q (want one part)", ErrInvalidPlan, strings.Join(names, "."))
	}
	t, err := p.table(names[0])
	if err != nil {
		return nil, nil, nil, err
	}
	sc := t.Schema()
	base := r.BaseSchema()
	if len(base.Names) != len(base.Struct.Types) {
		return nil, nil, nil, fmt.Errorf("%w: base_schema of %q has %d names for %d fields", ErrInvalidPlan, names[0], len(base.Names), len(base.Struct.Types))
	}
	baseCols := make([]int, len(base.Names))
	for i, n := range base.Names {
		if baseCols[i], err = columnOf(sc, names[0], n); err != nil {
			return nil, nil, nil, err
		}
	}
	mask, err := maskColumns(r)
	if err != nil {
		return nil, nil, nil, err
	}
	cols := make([]int, len(mask))
	for j, f := range mask {
		cols[j] = baseCols[f]
	}
	return t, baseCols, cols, nil
}

// namedRead scans the table columns that are needed (at least one, so row
// counts survive), pushing the projection into Scan.
func (p *planner) namedRead(r *splan.NamedTableReadRel, need []bool) (*rel, error) {
	t, baseCols, cols, err := p.namedTableBase(r)
	if err != nil {
		return nil, err
	}
	sc := t.Schema()
	// Table columns to read, in first-use order; a read filter references
	// the base schema, so its columns are read too.
	var scan []int
	pos := map[int]int{}
	use := func(c int) {
		if _, ok := pos[c]; !ok {
			pos[c] = len(scan)
			scan = append(scan, c)
		}
	}
	for j, c := range cols {
		if needs(need, j) {
			use(c)
		}
	}
	if err := refs(r.Filter(), func(i int) error {
		if i < 0 || i >= len(baseCols) {
			return fmt.Errorf("%w: read filter field %d of %d", ErrInvalidPlan, i, len(baseCols))
		}
		use(baseCols[i])
		return nil
	}); err != nil {
		return nil, err
	}
	if len(scan) == 0 {
		use(0)
	}
	var node exec.Node
	if conds := p.keyCondSets[r]; conds != nil {
		if ks, ok := t.(KeyScanner); ok {
			n, ok, err := ks.ScanWhereKeys(scan, conds)
			if err != nil {
				return nil, fmt.Errorf("plan: index scan %q: %w", r.Names()[0], err)
			}
			if ok {
				node = n
			}
		}
	}
	if ks := p.keySets[r]; ks != nil && node == nil {
		is, ok := t.(IndexedScanner)
		if on, ok2 := t.(IndexedOn); ok && ok2 && !on.IndexedOn(ks.col) {
			ok = false
		}
		if ok {
			n, ok, err := is.ScanWhereIn(scan, ks.col, ks.boxed())
			if err != nil {
				return nil, fmt.Errorf("plan: index scan %q: %w", r.Names()[0], err)
			}
			if ok {
				node = n
			}
		}
	}
	if node == nil {
		preds := p.zonePreds[r]
		if f := r.Filter(); f != nil {
			// The read's own filter references the base schema.
			preds = append(slices.Clip(preds), zonePredsOf(f, baseCols, sc)...)
		}
		if zs, ok := t.(ZoneScanner); ok && len(preds) > 0 {
			node, err = zs.ScanWhere(scan, preds)
		} else {
			node, err = t.Scan(scan)
		}
		if err != nil {
			return nil, fmt.Errorf("plan: scan %q: %w", r.Names()[0], err)
		}
	}
	if node.Schema().NumFields() != len(scan) {
		return nil, fmt.Errorf("%w: scan of %q returned %d columns, want %d", ErrInvalidPlan, r.Names()[0], node.Schema().NumFields(), len(scan))
	}
	if f := r.Filter(); f != nil {
		// The filter sees the base schema's fields.
		base := &rel{node: node, cols: make([]int, len(baseCols)), names: make([]string, len(baseCols))}
		for i, c := range baseCols {
			base.cols[i], base.names[i] = -1, sc.Field(c).Name
			if k, ok := pos[c]; ok {
				base.cols[i] = k
			}
		}
		fr, err := p.applyFilter(base, f)
		if err != nil {
			return nil, err
		}
		node = fr.node
	}
	out := &rel{node: node, cols: make([]int, len(cols)), names: make([]string, len(cols))}
	for j, c := range cols {
		out.cols[j], out.names[j] = -1, sc.Field(c).Name
		if k, ok := pos[c]; ok && needs(need, j) {
			out.cols[j] = k
		}
	}
	return out, nil
}

// readOf maps a leaf node producing every base field to the read's fields.
func readOf(r splan.ReadRel, node exec.Node, names []string) (*rel, error) {
	if r.Filter() != nil {
		return nil, fmt.Errorf("%w: filter on a %s", errUnsupported("read"), relName(r))
	}
	cols, err := maskColumns(r)
	if err != nil {
		return nil, err
	}
	out := &rel{node: node, cols: cols, names: make([]string, len(cols))}
	for j, c := range cols {
		out.names[j] = names[c]
	}
	return out, nil
}

// baseArrow returns a read's base schema as Arrow fields.
func baseArrow(r splan.ReadRel) ([]arrow.Field, error) {
	base := r.BaseSchema()
	if len(base.Names) != len(base.Struct.Types) {
		return nil, fmt.Errorf("%w: base_schema has %d names for %d fields", ErrInvalidPlan, len(base.Names), len(base.Struct.Types))
	}
	fields := make([]arrow.Field, len(base.Names))
	for i, t := range base.Struct.Types {
		at, err := arrowType(t)
		if err != nil {
			return nil, err
		}
		// Nullable even where Substrait says required: a NULL literal may
		// fill the slot, and the schema must not promise otherwise.
		fields[i] = arrow.Field{Name: base.Names[i], Type: at, Nullable: true}
	}
	return fields, nil
}

// virtualTable plans VALUES rows; they are evaluated at execution, with
// the task's allocator (and parameters).
func (p *planner) virtualTable(r *splan.VirtualTableReadRel) (*rel, error) {
	fields, err := baseArrow(r)
	if err != nil {
		return nil, err
	}
	rows := make([][]physexpr.Expr, len(r.Values()))
	for i, row := range r.Values() {
		if len(row) != len(fields) {
			return nil, fmt.Errorf("%w: virtual table row %d has %d values for %d columns", ErrInvalidPlan, i, len(row), len(fields))
		}
		rows[i] = make([]physexpr.Expr, len(row))
		for j, e := range row {
			if rows[i][j], err = p.expr(e, noFields{}); err != nil {
				return nil, err
			}
		}
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	v := &virtualTableExec{schema: arrow.NewSchema(fields, nil), rows: rows}
	return readOf(r, v, names)
}

// extensionRead plans stablerow's table functions (substrait.md §4).
func (p *planner) extensionRead(r *splan.ExtensionTableReadRel) (*rel, error) {
	d := r.Detail()
	if d == nil {
		return nil, fmt.Errorf("%w: extension table without detail", ErrInvalidPlan)
	}
	var st structpb.Struct
	if err := d.UnmarshalTo(&st); err != nil {
		return nil, fmt.Errorf("%w: extension table detail %s: %w", ErrInvalidPlan, d.GetTypeUrl(), err)
	}
	f := st.GetFields()
	base := r.BaseSchema()
	switch name := f["relation"].GetStringValue(); name {
	case "stablerow.unnest":
		return p.unnest(r, f)
	case "stablerow.read_parquet":
		return p.readParquet(r, f)
	case "stablerow.read_csv":
		return p.readCSV(r, f)
	case "stablerow.generate_series":
		if len(base.Names) != 1 || len(base.Struct.Types) != 1 {
			return nil, fmt.Errorf("%w: generate_series base_schema needs one column", ErrInvalidPlan)
		}
		start, err := intField(f, "start", 0, false)
		if err != nil {
			return nil, err
		}
		stop, err := intField(f, "stop", 0, false)
		if err != nil {
			return nil, err
		}
		step, err := intField(f, "step", 1, true)
		if err != nil {
			return nil, err
		}
		typ := arrow.DataType(arrow.PrimitiveTypes.Int64)
		switch base.Struct.Types[0].(type) {
		case *types.Int64Type:
		case *types.Int32Type:
			typ = arrow.PrimitiveTypes.Int32 // generate_series(integer, integer)
		default:
			return nil, fmt.Errorf("%w: generate_series column of type %s (i32 or i64)", ErrInvalidPlan, base.Struct.Types[0])
		}
		g, err := exec.NewGenerateSeriesExec(base.Names[0], typ, start, stop, step)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
		}
		return readOf(r, g, base.Names)
	default:
		return nil, fmt.Errorf("%w: %q", errUnsupported("extension table"), name)
	}
}

// intField reads an integral number (or a decimal string, for values past
// 2^53) from the detail.
func intField(f map[string]*structpb.Value, key string, def int64, optional bool) (int64, error) {
	v, ok := f[key]
	if !ok || v.GetKind() == nil {
		if optional {
			return def, nil
		}
		return 0, fmt.Errorf("%w: extension table detail lacks %q", ErrInvalidPlan, key)
	}
	switch k := v.GetKind().(type) {
	case *structpb.Value_NumberValue:
		x := k.NumberValue
		if x != math.Trunc(x) || x < -(1<<63) || x >= 1<<63 {
			return 0, fmt.Errorf("%w: %q = %v is not an int64", ErrInvalidPlan, key, x)
		}
		return int64(x), nil
	case *structpb.Value_StringValue:
		x, err := strconv.ParseInt(k.StringValue, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: %q = %q is not an int64", ErrInvalidPlan, key, k.StringValue)
		}
		return x, nil
	}
	return 0, fmt.Errorf("%w: %q is not a number", ErrInvalidPlan, key)
}

// unnest plans UNNEST(list) [WITH ORDINALITY]: a bound parameter (a list
// of i64 or of text) or a literal list of i64 becomes an exec.UnnestExec; a
// literal list of other element types becomes rows of (value, ord).
func (p *planner) unnest(r *splan.ExtensionTableReadRel, f map[string]*structpb.Value) (*rel, error) {
	base := r.BaseSchema()
	ord := f["ordinality"].GetBoolValue()
	want := 1
	if ord {
		want = 2
	}
	if len(base.Names) != want || len(base.Struct.Types) != want {
		return nil, fmt.Errorf("%w: unnest base_schema has %d columns, want %d", ErrInvalidPlan, len(base.Struct.Types), want)
	}
	et := f["element_type"].GetStringValue()
	at, ok := unnestElemTypes[et]
	if !ok {
		return nil, fmt.Errorf("%w: unnest element type %q", ErrInvalidPlan, et)
	}
	bt, err := arrowType(base.Struct.Types[0])
	if err != nil {
		return nil, err
	}
	if !arrow.TypeEqual(bt, at) {
		return nil, fmt.Errorf("%w: unnest element_type %s but base_schema %s", ErrInvalidPlan, et, bt)
	}
	var node exec.Node
	_, hasParam := f["param"]
	lv, hasValues := f["values"]
	switch {
	case hasParam && hasValues:
		return nil, fmt.Errorf("%w: unnest has both param and values", ErrInvalidPlan)
	case hasParam:
		k, err := intField(f, "param", 0, false)
		if err != nil {
			return nil, err
		}
		if at.ID() != arrow.INT64 && at.ID() != arrow.STRING {
			return nil, fmt.Errorf("%w: unnest of a %s parameter", errUnsupported("extension table"), et)
		}
		u := p.params[int(k)]
		if u.list != nil && !arrow.TypeEqual(u.list, at) {
			return nil, fmt.Errorf("%w: parameter $%d unnested as lists of %s and %s", ErrInvalidPlan, k, u.list, at)
		}
		u.list = at
		p.params[int(k)] = u
		if node, err = exec.NewUnnestParamExec(int(k), at); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
		}
	case hasValues:
		vals := lv.GetListValue().GetValues()
		if lv.GetListValue() == nil {
			return nil, fmt.Errorf("%w: unnest values is not a list", ErrInvalidPlan)
		}
		if node, err = literalUnnest(vals, at); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: unnest has neither param nor values", ErrInvalidPlan)
	}
	// Through readOf as every other leaf: a filter on the read is refused
	// (it was silently dropped: every unnested value came back) and a
	// projection mask is applied (it was ignored).
	return readOf(r, node, base.Names)
}

// literalUnnest builds the node for UNNEST(ARRAY[...]).
func literalUnnest(vals []*structpb.Value, t arrow.DataType) (exec.Node, error) {
	if t.ID() == arrow.INT64 {
		ptrs := make([]*int64, len(vals))
		nulls := false
		for i, v := range vals {
			switch k := v.GetKind().(type) {
			case *structpb.Value_NullValue:
				nulls = true
			case *structpb.Value_NumberValue:
				x := k.NumberValue
				if x != math.Trunc(x) || x < -(1<<63) || x >= 1<<63 {
					return nil, fmt.Errorf("%w: unnest value %v is not an int64", ErrInvalidPlan, x)
				}
				y := int64(x)
				ptrs[i] = &y
			case *structpb.Value_StringValue:
				// Integers beyond 2^53 travel as decimal digits: a
				// structpb number would round them.
				y, err := strconv.ParseInt(k.StringValue, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%w: unnest value %d: %q is not an int64", ErrInvalidPlan, i, k.StringValue)
				}
				ptrs[i] = &y
			default:
				return nil, fmt.Errorf("%w: unnest value %d is not a number", ErrInvalidPlan, i)
			}
		}
		if nulls {
			return exec.NewUnnestExec(ptrs)
		}
		plain := make([]int64, len(vals))
		for i, p := range ptrs {
			plain[i] = *p
		}
		return exec.NewUnnestExec(plain)
	}
	rows := make([][]physexpr.Expr, len(vals))
	for i, v := range vals {
		lit := physexpr.Lit{Type: t}
		switch k := v.GetKind().(type) {
		case *structpb.Value_NullValue:
		case *structpb.Value_NumberValue:
			if t.ID() != arrow.FLOAT64 {
				return nil, fmt.Errorf("%w: unnest value %d: number in a %s list", ErrInvalidPlan, i, t)
			}
			lit.Value = k.NumberValue
		case *structpb.Value_StringValue:
			if t.ID() != arrow.STRING {
				return nil, fmt.Errorf("%w: unnest value %d: string in a %s list", ErrInvalidPlan, i, t)
			}
			lit.Value = k.StringValue
		case *structpb.Value_BoolValue:
			if t.ID() != arrow.BOOL {
				return nil, fmt.Errorf("%w: unnest value %d: bool in a %s list", ErrInvalidPlan, i, t)
			}
			lit.Value = k.BoolValue
		default:
			return nil, fmt.Errorf("%w: unnest value %d of kind %T", ErrInvalidPlan, i, k)
		}
		rows[i] = []physexpr.Expr{lit, physexpr.Lit{Value: int64(i + 1)}}
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "value", Type: t, Nullable: true},
		{Name: "ord", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	return &virtualTableExec{schema: sc, rows: rows, ordering: []exec.SortKey{{Column: 1, Name: "ord"}}}, nil
}
