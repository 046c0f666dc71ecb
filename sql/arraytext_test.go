package sql

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseArrayText(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, c := range []struct {
		in   string
		want []*string
	}{
		{"{}", []*string{}},
		{" { } ", []*string{}},
		{"{1,2,3}", []*string{str("1"), str("2"), str("3")}},
		{"{ 1 , -2 ,NULL, null}", []*string{str("1"), str("-2"), nil, nil}},
		{`{"NULL","a b",c\,d, "x\"y" }`, []*string{str("NULL"), str("a b"), str("c,d"), str(`x"y`)}},
		{`{""}`, []*string{str("")}},
	} {
		got, err := parseArrayText(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
	for _, in := range []string{"", "1,2", "{1,2", "{1,,2}", "{,}", "{1,}", `{"a}`, `{a\}`, "{{1,2},{3,4}}"} {
		_, err := parseArrayText(in)
		require.Error(t, err, in)
		require.True(t, errors.Is(err, ErrInvalid), in)
	}
}

// FuzzParseArrayText: any input is a list or an ErrInvalid, never a panic,
// and a list's elements printed back quoted read as the same list.
func FuzzParseArrayText(f *testing.F) {
	for _, s := range []string{"{}", "{1,2,NULL}", `{"a b",c\,d}`, "{{1}}", "{1,,2}", `{"x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseArrayText(s)
		if err != nil {
			require.True(t, errors.Is(err, ErrInvalid))
			return
		}
		text := "{"
		for i, p := range got {
			if i > 0 {
				text += ","
			}
			if p == nil {
				text += "NULL"
				continue
			}
			text += `"`
			for j := 0; j < len(*p); j++ {
				if (*p)[j] == '"' || (*p)[j] == '\\' {
					text += `\`
				}
				text += (*p)[j : j+1]
			}
			text += `"`
		}
		again, err := parseArrayText(text + "}")
		require.NoError(t, err, text)
		require.Equal(t, got, again)
	})
}
