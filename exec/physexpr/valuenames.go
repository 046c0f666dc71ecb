package physexpr

import "github.com/stablerow/stablerow/value"

// Names of package value that exec still exports. The functions and types
// live in value (parse, format, cast of single values, decimal, date/time,
// extract fields, bpchar); exec keeps these few names because plan names
// them through exec (plan/types.go, params.go, expr_funcs.go, bpchar.go,
// extract.go) and builds the exec.Extract and exec.Cast expressions next
// to them. Each is the same constant, type or function, not a copy. New
// code names value directly.
const MaxDecimalPrecision = value.MaxDecimalPrecision

// ExtractField is value.ExtractField, the field of exec.Extract.
type ExtractField = value.ExtractField

// The fields exec.Extract reads (value.FieldYear, ...).
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

// The single-value conversions plan calls through exec when it builds
// literals and result types.
var (
	DecimalFromInt    = value.DecimalFromInt
	DateToTimestamp   = value.DateToTimestamp
	DecimalRoundScale = value.DecimalRoundScale
	TrimBlanks        = value.TrimBlanks
)
