package physexpr

import "github.com/stablerow/stablerow/value"

// Names of package value that physexpr still exports. The functions and
// types live in value (parse, format, cast of single values, decimal,
// date/time, extract fields, bpchar); physexpr keeps these few names
// because plan names them through it (plan/types.go, params.go,
// expr_funcs.go, bpchar.go, extract.go) and builds the physexpr.Extract
// and physexpr.Cast expressions next to them. Each is the same constant, type or function, not a copy. New
// code names value directly.
const MaxDecimalPrecision = value.MaxDecimalPrecision

// ExtractField is value.ExtractField, the field of physexpr.Extract.
type ExtractField = value.ExtractField

// The fields physexpr.Extract reads (value.FieldYear, ...).
const (
	FieldYear         = value.FieldYear
	FieldISOYear      = value.FieldISOYear
	FieldQuarter      = value.FieldQuarter
	FieldMonth        = value.FieldMonth
	FieldWeek         = value.FieldWeek
	FieldDay          = value.FieldDay
	FieldDOW          = value.FieldDOW
	FieldISODOW       = value.FieldISODOW
	FieldDOY          = value.FieldDOY
	FieldDecade       = value.FieldDecade
	FieldCentury      = value.FieldCentury
	FieldMillennium   = value.FieldMillennium
	FieldHour         = value.FieldHour
	FieldMinute       = value.FieldMinute
	FieldSecond       = value.FieldSecond
	FieldMilliseconds = value.FieldMilliseconds
	FieldMicroseconds = value.FieldMicroseconds
	FieldEpoch        = value.FieldEpoch
	FieldSubsecond    = value.FieldSubsecond
)

// The single-value conversions plan calls through physexpr when it builds
// literals and result types.
var (
	DecimalFromInt    = value.DecimalFromInt
	DateToTimestamp   = value.DateToTimestamp
	DecimalRoundScale = value.DecimalRoundScale
	TrimBlanks        = value.TrimBlanks
)
