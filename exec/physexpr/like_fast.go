package physexpr

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The LIKE fast path: a literal pattern made only of literal runs and '%'
// ('abc%', '%abc', '%abc%', '%a%b%', 'abc'), matched on a text column's
// raw bytes without a string per row. Such a pattern is
//
//	start % mid1 % mid2 % ... % end      (start, end possibly empty)
//
// and a text matches when it begins with start, the mids occur after it in
// order, leftmost first (taking the leftmost occurrence of each never
// loses a match that a later one would find), and end is a suffix of
// what is left. A pattern with '_' or '\', or that is not valid UTF-8,
// goes to likeMatch. On valid UTF-8 runs a byte match is a character
// match: a run begins with a byte that starts a character, and every such
// byte of the text is a position likeMatch's '%' would try.

// likePlan is a literal pattern split at its '%'s.
type likePlan struct {
	wild       bool // the pattern has a '%'
	start, end []byte
	mids       [][]byte
}

// planLike splits pat; ok is false when pat needs the general matcher.
func planLike(pat string) (likePlan, bool) {
	if strings.ContainsAny(pat, `_\`) || !utf8.ValidString(pat) {
		return likePlan{}, false
	}
	parts := strings.Split(pat, "%")
	p := likePlan{wild: len(parts) > 1, start: []byte(parts[0])}
	if !p.wild {
		return p, true
	}
	p.end = []byte(parts[len(parts)-1])
	for _, m := range parts[1 : len(parts)-1] {
		if m != "" {
			p.mids = append(p.mids, []byte(m))
		}
	}
	return p, true
}

func (p *likePlan) match(t []byte) bool {
	if !p.wild {
		return bytes.Equal(t, p.start)
	}
	if !bytes.HasPrefix(t, p.start) {
		return false
	}
	t = t[len(p.start):]
	for _, m := range p.mids {
		i := bytes.Index(t, m)
		if i < 0 {
			return false
		}
		t = t[i+len(m):]
	}
	return bytes.HasSuffix(t, p.end)
}

// lowerInto is t in lower case as strings.ToLower makes it, ASCII text
// folded byte by byte into buf (reused) without a string.
func lowerInto(buf, t []byte) []byte {
	for _, c := range t {
		if c >= utf8.RuneSelf {
			return append(buf[:0], strings.ToLower(string(t))...)
		}
	}
	buf = buf[:0]
	for _, c := range t {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}

// likeColumn runs the plan over a text column (an ILIKE plan is lowered
// already and lowers each row); not negates. ok is false for a datum that
// is not a string column.
func likeColumn(mem memory.Allocator, p *likePlan, ci, not bool, d compute.Datum) (compute.Datum, bool) {
	ad, isCol := d.(*compute.ArrayDatum)
	if !isCol {
		return nil, false
	}
	col := ad.Value
	switch col.DataType().ID() {
	case arrow.STRING:
		return likeRows(mem, p, ci, not, col, offsetsOf[int32](col)), true
	case arrow.LARGE_STRING:
		return likeRows(mem, p, ci, not, col, offsetsOf[int64](col)), true
	}
	return nil, false
}

func likeRows[O int32 | int64](mem memory.Allocator, p *likePlan, ci, not bool, col arrow.ArrayData, offs []O) compute.Datum {
	n := col.Len()
	out := newCmpOut(mem, n)
	andValidity(out.valid.Bytes(), n, col)
	var data, low []byte
	if n > 0 && col.Buffers()[2] != nil {
		data = col.Buffers()[2].Bytes()
	}
	for base := 0; base < n; base += 64 {
		var w uint64
		for j := 0; j < min(64, n-base); j++ {
			i := base + j
			t := data[offs[i]:offs[i+1]]
			if ci {
				low = lowerInto(low, t)
				t = low
			}
			w |= b2u(p.match(t)) << j
		}
		if not {
			w = ^w
		}
		out.putVal(base/64, w)
	}
	a := out.finish()
	defer a.Release()
	return compute.NewDatum(a)
}
