package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// paramFlags collects -p name=VALUES (repeatable). VALUES is one integer
// (bound as a single value; where the plan unnests a list it is the list of
// one), integers separated by commas (a list: "5," is the list of one), or
// @FILE: a list read from a file, one id a line or comma-separated, for
// lists too long for a command line.
type paramFlags map[string]any

func (p paramFlags) String() string { return fmt.Sprint(map[string]any(p)) }

func (p paramFlags) Set(s string) error {
	name, vals, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=v1,v2,... or name=@file, got %q", s)
	}
	if path, ok := strings.CutPrefix(vals, "@"); ok {
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("parameter %s: %w", name, err)
		}
		list, err := parseInts(name, string(data))
		if err != nil {
			return fmt.Errorf("%w (in %s)", err, path)
		}
		p[name] = list
		return nil
	}
	list, err := parseInts(name, vals)
	if err != nil {
		return err
	}
	switch {
	case strings.Contains(vals, ","):
		p[name] = list
	case len(list) == 1:
		p[name] = list[0]
	default:
		return fmt.Errorf("parameter %s: no value", name)
	}
	return nil
}

// parseInts reads integers separated by commas and/or white space
// (newlines included); empty fields are skipped.
func parseInts(name, text string) ([]int64, error) {
	fields := strings.FieldsFunc(text, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
	list := make([]int64, 0, len(fields))
	for i, f := range fields {
		x, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: value %d, %q, is not a 64-bit integer", name, i+1, f)
		}
		list = append(list, x)
	}
	return list, nil
}
