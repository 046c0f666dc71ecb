package value

import "github.com/apache/arrow-go/v18/arrow"

// SQLTypeKey is the Arrow field metadata key holding a column's declared
// SQL type when the Arrow type alone does not say it: "varchar(5)",
// "char(3) trimmed", "varchar" for string columns (a string column without
// it is text). The table records it in the manifest so INSERT and UPDATE
// check lengths against the declaration and describe shows it.
const SQLTypeKey = "stablerow.sql_type"

// CharTrimmed ends the declared type of a char(n) column whose values are
// stored without their trailing blanks, the engine's form of character(n)
// (bpchar.go): "char(3) trimmed". A bare "char(3)" is a column written
// before that form, its values stored blank-padded; readers strip them.
// The spelling is the format's version: a reader that knows only "char(n)"
// refuses the manifest rather than misread the column.
const CharTrimmed = " trimmed"

// SQLType returns the declared SQL type recorded in f's metadata.
func SQLType(f arrow.Field) (string, bool) { return f.Metadata.GetValue(SQLTypeKey) }
