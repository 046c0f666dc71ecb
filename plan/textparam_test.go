package plan

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stablerow/stablerow/errkind"
)

// TestTextParam: untyped text is read by the input function of the type
// the parameter has, as PostgreSQL reads a text-format parameter
// (exec_bind_message); bad text is InvalidArgument with PostgreSQL's
// message; a numeric is never rounded to the column's scale.
func TestTextParam(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 10, Scale: 2}
	for _, c := range []struct {
		text string
		typ  arrow.DataType
		want string // the scalar's text, or the error's
	}{
		{"5", arrow.BinaryTypes.String, "5"},
		{"5", arrow.PrimitiveTypes.Int64, "5"},
		{" -7 ", arrow.PrimitiveTypes.Int64, "-7"},
		{"2.5", arrow.PrimitiveTypes.Float64, "2.5"},
		{"t", arrow.FixedWidthTypes.Boolean, "true"},
		{"2021-03-04", arrow.FixedWidthTypes.Date32, "2021-03-04"},
		{"2.25", dec, "2.25"},
		{"3", dec, "3.00"},
		{"abc", arrow.PrimitiveTypes.Int64, `error: invalid input syntax for type bigint: "abc"`},
		{"2.5", arrow.PrimitiveTypes.Int64, `error: invalid input syntax for type bigint: "2.5"`},
		{"1.234", dec, "error: parameter of wrong type: 1.234 does not fit numeric(10,2) exactly"},
		{"x", dec, `error: invalid input syntax for type numeric: "x"`},
		{"2021-13-01", arrow.FixedWidthTypes.Date32, `error: date/time field value out of range: "2021-13-01"`},
	} {
		s, err := paramScalar(1, TextParam(c.text), c.typ)
		got := ""
		if err != nil {
			// A value error of PostgreSQL's classes 22P02 / 22008.
			if !errors.Is(err, errkind.InvalidArgument) && !errors.Is(err, errkind.OutOfRange) {
				t.Errorf("%q as %s: error %v is not InvalidArgument or OutOfRange", c.text, c.typ, err)
			}
			got = "error: " + errkind.Message(err, false)
		} else {
			if !arrow.TypeEqual(s.DataType(), c.typ) {
				t.Errorf("%q as %s: scalar of type %s", c.text, c.typ, s.DataType())
			}
			got = s.String()
			if d, ok := s.(*scalar.Decimal128); ok {
				got = d.Value.ToString(c.typ.(*arrow.Decimal128Type).Scale)
			}
		}
		if ok := strings.HasPrefix(got, c.want); !ok || !strings.HasPrefix(c.want, "error: ") && got != c.want {
			t.Errorf("%q as %s: %s, want %s", c.text, c.typ, got, c.want)
		}
	}
}

// TestTextParamUnnest: one text value where a list is unnested is the
// list of one, of the list's element type.
func TestTextParamUnnest(t *testing.T) {
	l, err := unnestList(1, TextParam("5"), arrow.PrimitiveTypes.Int64)
	if err != nil || fmt.Sprint(l) != "[5]" {
		t.Fatalf("int64 list: %v, %v", l, err)
	}
	if _, ok := l.([]int64); !ok {
		t.Fatalf("int64 list is %T", l)
	}
	l, err = unnestList(1, TextParam("a,b"), arrow.BinaryTypes.String)
	if s, ok := l.([]string); err != nil || !ok || len(s) != 1 || s[0] != "a,b" {
		t.Fatalf("text list: %#v, %v", l, err)
	}
	if _, err := unnestList(1, TextParam("x"), arrow.PrimitiveTypes.Int64); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("bad id: %v", err)
	}
}
