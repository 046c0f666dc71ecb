package value

import "strings"

// ParseBool is PostgreSQL's boolin: case-insensitive, surrounding spaces
// ignored; any prefix of true/false/yes/no, "on", "off" and its prefix
// "of", "1" and "0". The planner's constants and CSV input read booleans
// through it too, so 'of'::boolean is false everywhere.
func ParseBool(s string) (value, ok bool) {
	t := strings.ToLower(strings.Trim(s, InputSpace))
	if t == "" {
		return false, false
	}
	switch {
	case strings.HasPrefix("true", t), strings.HasPrefix("yes", t), t == "on", t == "1":
		return true, true
	case strings.HasPrefix("false", t), strings.HasPrefix("no", t), t == "off", t == "of", t == "0":
		return false, true
	}
	return false, false
}
