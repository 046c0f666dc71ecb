package sql

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/substrait-io/substrait-go/v8/types"

	"github.com/stablerow/stablerow/sql/sqltype"
)

// The front end's short names for the type system of package sqltype,
// which owns the kinds, their Substrait and Arrow types and the numeric
// promotion; the parse tree's type names resolve over them (types.go).

type kind = sqltype.Kind

const (
	idUnknown   = sqltype.IDUnknown
	idI16       = sqltype.IDI16
	idI32       = sqltype.IDI32
	idI64       = sqltype.IDI64
	idF32       = sqltype.IDF32
	idF64       = sqltype.IDF64
	idString    = sqltype.IDString
	idVarchar   = sqltype.IDVarchar
	idChar      = sqltype.IDChar
	idBool      = sqltype.IDBool
	idDate      = sqltype.IDDate
	idTimestamp = sqltype.IDTimestamp
	idNumeric   = sqltype.IDNumeric

	maxCharLength = sqltype.MaxCharLength
)

var (
	kindUnknown   = sqltype.KindUnknown
	kindI16       = sqltype.KindI16
	kindI32       = sqltype.KindI32
	kindI64       = sqltype.KindI64
	kindF32       = sqltype.KindF32
	kindF64       = sqltype.KindF64
	kindString    = sqltype.KindString
	kindBool      = sqltype.KindBool
	kindDate      = sqltype.KindDate
	kindTimestamp = sqltype.KindTimestamp
	sqlTypeNames  = sqltype.Names
)

func kindVarchar(n int32) kind                    { return sqltype.KindVarchar(n) }
func kindChar(n int32) kind                       { return sqltype.KindChar(n) }
func kindNumeric(p, s int32) kind                 { return sqltype.KindNumeric(p, s) }
func kindOf(t types.Type) kind                    { return sqltype.Of(t) }
func fieldKind(f arrow.Field) kind                { return sqltype.OfField(f) }
func promote(a, b kind) kind                      { return sqltype.Promote(a, b) }
func isNullable(t types.Type) bool                { return sqltype.IsNullable(t) }
func nullability(nullable bool) types.Nullability { return sqltype.Nullability(nullable) }
func parseDeclared(decl string) (kind, bool)      { return sqltype.ParseDeclared(decl) }
