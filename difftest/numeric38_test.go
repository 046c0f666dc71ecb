package difftest

import "testing"

// TestBeyond38Digits: the known difference matches an overflow only where
// the operation's exact result needs more than 38 digits at stablerow's
// scale for it (seed 20261228 case 144147), never one that would fit or
// one whose operands are not plain numbers (or columns whose row values
// the error gives).
func TestBeyond38Digits(t *testing.T) {
	for msg, want := range map[string]bool{
		"exec: value out of range: numeric field overflow in 17374997121454563655.68 / -1.01":       true,  // 20 integer digits + scale 20
		"value out of range: numeric field overflow in 999999999999999999999999999999999999.99 + 1": true,  // 37 + 2 digits
		"numeric field overflow in 99999999999999999999999999999999999.99 + 1":                      false, // 36 + 2 digits fit
		"numeric field overflow in 1234567890123456789.12 * 1234567890123456789.12 (row: x = 1)":    true,
		"numeric field overflow in 10.00 / 3":                                                       false, // 1 + 20 digits fit
		"numeric field overflow in 12.5 * 2":                                                        false,
		"numeric field overflow in x@1 * 3 (row: x = 5)":                                            false, // 15 fits
		// A column operand takes the row's value (seed 20261231 case 93843).
		"exec: value out of range: numeric field overflow in 4611686011984936962.00 / c3@0 (row: c3 = -1.00)": true, // 19 + 20 digits
		"numeric field overflow in 4611686011984936962.00 / c3@0 (row: k = 5, c3 = -1.00)":                    true,
		"numeric field overflow in 4611686011984936962.00 / c3@0":                                             false, // no row value
		"numeric field overflow in c3@0 / c4@1 (row: c3 = 1.00, c4 = 3)":                                      false, // fits
		"numeric field overflow in 4611686011984936962.00 / COALESCE(c3@0, c3@0) (row: c3 = -1.00)":           true,
		"numeric field overflow in 4611686011984936962.00 / COALESCE(c3@0, 2.00) (row: c3 = NULL)":            true,
		"numeric field overflow in 4611686011984936962.00 / abs(c3@0) (row: c3 = -1.00)":                      false, // not evaluated
		"numeric field overflow in 1 / 0":                                                                     false,
		"bigint out of range in 9223372036854775807 + 1":                                                      false,
		"numeric field overflow (sum)":                                                                        false,
		"numeric field overflow in 99999999999999999999.5 - -1.5":                                             false, // 21 + 1 digits
	} {
		if got := beyond38Digits(msg); got != want {
			t.Errorf("%q: %v, want %v", msg, got, want)
		}
	}
}
