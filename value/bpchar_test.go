package value

import (
	"testing"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stretchr/testify/require"
)

// TestCharCast: PostgreSQL's varchar(n)/char(n) coercions (psql answers):
// blanks past n are cut, anything else past n is an error on assignment
// and cut by an explicit cast; char(n) pads; lengths count characters.
func TestCharCast(t *testing.T) {
	vc := CharCast{Len: 3}
	for in, want := range map[string]string{"abc": "abc", "ab": "ab", "abc   ": "abc", "äöü": "äöü", "äöü ": "äöü", "": ""} {
		got, err := vc.Apply(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err := vc.Apply("abcd")
	require.ErrorIs(t, err, errkind.OutOfRange)
	require.Contains(t, err.Error(), "value too long for type character varying(3)")
	_, err = CharCast{Len: 3, Pad: true}.Apply("äöüx")
	require.Contains(t, err.Error(), "value too long for type character(3)")
	got, err := CharCast{Len: 3, Pad: true}.Apply("ä")
	require.NoError(t, err)
	require.Equal(t, "ä  ", got)
	require.Equal(t, "abc", vc.Truncate("abcdef"))
	require.Equal(t, "ab   ", CharCast{Len: 5, Pad: true}.Truncate("ab"))
	got, err = CharCast{Trim: true}.Apply("ab   ")
	require.NoError(t, err)
	require.Equal(t, "ab", got, "char(n) to text drops the padding")
	got, err = CharCast{Trim: true, Len: 2}.Apply("ab   ")
	require.NoError(t, err)
	require.Equal(t, "ab", got)
}

// TestBpcharForms: character(n) held without its trailing blanks
// (TrimBlanks, CharCast's Char), shown padded to n characters
// (PadBlanks), octet_length with the padding (answers from PostgreSQL
// 15).
func TestBpcharForms(t *testing.T) {
	require.Equal(t, "ab", TrimBlanks("ab  "))
	require.Equal(t, " a", TrimBlanks(" a "))
	require.Equal(t, "é   ", PadBlanks("é", 4))
	require.Equal(t, "abcd", PadBlanks("abcd", 2))
	require.EqualValues(t, 5, CharOctetLength("é", 4))
	require.EqualValues(t, 4, CharOctetLength("", 4))

	got, err := CharCast{Len: 4, Char: true}.Apply("ab      ")
	require.NoError(t, err)
	require.Equal(t, "ab", got)
	_, err = CharCast{Len: 4, Char: true}.Apply("abcde")
	require.ErrorIs(t, err, ErrOutOfRange)
	require.ErrorContains(t, err, "character(4)")
	require.Equal(t, "ab", CharCast{Len: 3, Char: true}.Truncate("ab cd"))

}
