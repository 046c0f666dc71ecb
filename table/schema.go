package table

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/value"
)

// System column names and their reserved field ids.
const (
	RowID   = "_rowid"
	RowAddr = "_rowaddr"

	RowIDFieldID   = -3
	RowAddrFieldID = -2
)

// FieldIDKey is the Arrow field metadata key holding a field's id.
const FieldIDKey = "stablerow.field_id"

// The declared SQL type of a column, recorded in its field metadata, is
// value's (value.SQLTypeKey, value.CharTrimmed, value.SQLType: the SQL
// front end writes it without importing table). table keeps the names
// because its manifest codec and its callers (engine) read them here.
const (
	SQLTypeKey  = value.SQLTypeKey
	CharTrimmed = value.CharTrimmed
)

// SQLType returns the declared SQL type recorded in f's metadata.
func SQLType(f arrow.Field) (string, bool) { return value.SQLType(f) }

// IsSystemColumn reports whether name is _rowid or _rowaddr.
func IsSystemColumn(name string) bool { return name == RowID || name == RowAddr }

func fieldWithID(name string, t arrow.DataType, nullable bool, id int) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: nullable,
		Metadata: arrow.NewMetadata([]string{FieldIDKey}, []string{strconv.Itoa(id)})}
}

// userField is fieldWithID keeping a declared SQL type.
func userField(f arrow.Field, id int) arrow.Field {
	sqlType, ok := SQLType(f)
	if !ok {
		return fieldWithID(f.Name, f.Type, f.Nullable, id)
	}
	return arrow.Field{Name: f.Name, Type: f.Type, Nullable: f.Nullable,
		Metadata: arrow.NewMetadata([]string{FieldIDKey, SQLTypeKey}, []string{strconv.Itoa(id), sqlType})}
}

// FieldID returns the field id recorded in f's metadata.
func FieldID(f arrow.Field) (int, bool) {
	v, ok := f.Metadata.GetValue(FieldIDKey)
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(v)
	return id, err == nil
}

// typeCodes are the column types a table stores. The code is what the
// manifest records, so codes are never renumbered.
var typeCodes = []struct {
	code uint64
	t    arrow.DataType
}{
	{1, arrow.FixedWidthTypes.Boolean},
	{2, arrow.PrimitiveTypes.Int8},
	{3, arrow.PrimitiveTypes.Int16},
	{4, arrow.PrimitiveTypes.Int32},
	{5, arrow.PrimitiveTypes.Int64},
	{6, arrow.PrimitiveTypes.Uint8},
	{7, arrow.PrimitiveTypes.Uint16},
	{8, arrow.PrimitiveTypes.Uint32},
	{9, arrow.PrimitiveTypes.Uint64},
	{10, arrow.PrimitiveTypes.Float32},
	{11, arrow.PrimitiveTypes.Float64},
	{12, arrow.BinaryTypes.String},
	{13, arrow.BinaryTypes.Binary},
	{14, arrow.FixedWidthTypes.Date32},
	{15, &arrow.TimestampType{Unit: arrow.Microsecond}}, // PostgreSQL's timestamp (without time zone)
}

// Codes of types with parameters, written after the code in the manifest.
const (
	codeDecimal128 = 16 // then precision and scale, as uvarints
	// codeDeclared is a string column with a declared SQL type (SQLTypeKey),
	// written after the code.
	codeDeclared = 17
)

// maxDecimalPrecision is decimal128's: 38 digits.
const maxDecimalPrecision = 38

func typeCode(t arrow.DataType) (uint64, bool) {
	if d, ok := t.(*arrow.Decimal128Type); ok {
		return codeDecimal128, d.Precision >= 1 && d.Precision <= maxDecimalPrecision && d.Scale >= 0 && d.Scale <= d.Precision
	}
	for _, c := range typeCodes {
		if arrow.TypeEqual(c.t, t) {
			return c.code, true
		}
	}
	return 0, false
}

func typeOf(code uint64) (arrow.DataType, bool) {
	for _, c := range typeCodes {
		if c.code == code {
			return c.t, true
		}
	}
	return nil, false
}

// checkSQLType validates a declared SQL type: only string columns carry
// one, spelled varchar, varchar(n) or char(n) with 1 <= n <= 10485760
// (PostgreSQL's limit).
func checkSQLType(f arrow.Field) error {
	decl, ok := SQLType(f)
	if !ok {
		return nil
	}
	if f.Type.ID() != arrow.STRING {
		return errorf(ErrSchema, "column %q: declared type %q on a %s column", f.Name, decl, f.Type)
	}
	if decl == "varchar" {
		return nil
	}
	if c, ok := strings.CutSuffix(decl, CharTrimmed); ok && strings.HasPrefix(c, "char(") {
		decl = c
	}
	for _, prefix := range []string{"varchar(", "char("} {
		if rest, ok := strings.CutPrefix(decl, prefix); ok {
			if n, err := strconv.Atoi(strings.TrimSuffix(rest, ")")); err == nil && strings.HasSuffix(rest, ")") && n >= 1 && n <= 10485760 {
				return nil
			}
		}
	}
	return errorf(ErrSchema, "column %q: bad declared type %q", f.Name, decl)
}

// checkUserSchema validates a schema given to Create: supported types,
// unique non-empty names, no system or underscore-prefixed reserved names.
func checkUserSchema(s *arrow.Schema) error {
	if s == nil || s.NumFields() == 0 {
		return errorf(ErrSchema, "a table needs at least one column")
	}
	seen := map[string]bool{}
	for _, f := range s.Fields() {
		if f.Name == "" {
			return errorf(ErrSchema, "empty column name")
		}
		if IsSystemColumn(f.Name) {
			return errorf(ErrSchema, "column name %q is reserved", f.Name)
		}
		key := strings.ToLower(f.Name)
		if seen[key] {
			return errorf(ErrSchema, "duplicate column %q", f.Name)
		}
		seen[key] = true
		if _, ok := typeCode(f.Type); !ok {
			return errorf(ErrSchema, "column %q: unsupported type %s", f.Name, f.Type)
		}
		if err := checkSQLType(f); err != nil {
			return err
		}
	}
	return nil
}

// normalizeUserSchema strips metadata but the declared SQL type and
// assigns field ids 0..n-1.
func normalizeUserSchema(s *arrow.Schema) *arrow.Schema {
	fs := make([]arrow.Field, s.NumFields())
	for i, f := range s.Fields() {
		fs[i] = userField(f, i)
	}
	return arrow.NewSchema(fs, nil)
}

// fullSchema is the user schema followed by the system columns.
func fullSchema(user *arrow.Schema) *arrow.Schema {
	fs := append([]arrow.Field{}, user.Fields()...)
	fs = append(fs,
		fieldWithID(RowID, arrow.PrimitiveTypes.Uint64, false, RowIDFieldID),
		fieldWithID(RowAddr, arrow.PrimitiveTypes.Uint64, false, RowAddrFieldID))
	return arrow.NewSchema(fs, nil)
}

func encodeSchema(e *encoder, s *arrow.Schema) {
	e.uv(uint64(s.NumFields()))
	for _, f := range s.Fields() {
		code, _ := typeCode(f.Type)
		decl, declared := SQLType(f)
		if declared {
			code = codeDeclared
		}
		e.str(f.Name)
		e.uv(code)
		switch code {
		case codeDecimal128:
			d := f.Type.(*arrow.Decimal128Type)
			e.uv(uint64(d.Precision))
			e.uv(uint64(d.Scale))
		case codeDeclared:
			e.str(decl)
		}
		e.bool(f.Nullable)
	}
}

func decodeSchema(d *decoder) *arrow.Schema {
	n := d.count("schema field count", 3)
	fs := make([]arrow.Field, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		name := d.str("field name")
		code := d.uv("field type")
		var md arrow.Metadata
		t, ok := typeOf(code)
		switch code {
		case codeDecimal128:
			p, s := d.uv("decimal precision"), d.uv("decimal scale")
			ok = p >= 1 && p <= maxDecimalPrecision && s <= p
			t = &arrow.Decimal128Type{Precision: int32(min(p, maxDecimalPrecision)), Scale: int32(min(s, maxDecimalPrecision))}
		case codeDeclared:
			md = arrow.NewMetadata([]string{SQLTypeKey}, []string{d.str("declared type")})
			t, ok = arrow.BinaryTypes.String, true
		}
		nullable := d.bool("field nullability")
		if !ok && d.err == nil {
			d.err = errorf(ErrCorrupt, "manifest: field %q has unknown type code %d", name, code)
		}
		fs = append(fs, arrow.Field{Name: name, Type: t, Nullable: nullable, Metadata: md})
	}
	if d.err != nil {
		return nil
	}
	s := arrow.NewSchema(fs, nil)
	if err := checkUserSchema(s); err != nil {
		d.err = fmt.Errorf("%w: manifest schema: %w", ErrCorrupt, err)
		return nil
	}
	return normalizeUserSchema(s)
}
