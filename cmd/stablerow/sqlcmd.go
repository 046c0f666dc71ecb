package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/stablerow/stablerow/engine"
)

// paramFlags collects -p name=v1,v2,... (a list of integers binds as a
// list; a single value as a scalar).
type paramFlags map[string]any

func (p paramFlags) String() string { return fmt.Sprint(map[string]any(p)) }

func (p paramFlags) Set(s string) error {
	name, vals, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=v1,v2,..., got %q", s)
	}
	var list []int64
	for _, v := range strings.Split(vals, ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("parameter %s: %v", name, err)
		}
		list = append(list, x)
	}
	if strings.Contains(vals, ",") || strings.HasPrefix(name, "ids") {
		p[name] = list
	} else if len(list) == 1 {
		p[name] = list[0]
	} else {
		p[name] = list
	}
	return nil
}

func runSQL(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("sql", flag.ContinueOnError)
	dir := fs.String("d", ".stablerow", "database directory")
	expr := fs.String("e", "", "statements to run (default: interactive prompt on stdin)")
	noIdx := fs.Bool("no-index", false, "plan without indexes")
	explain := fs.Bool("plan", false, "print the plan that ran, with metrics")
	params := paramFlags{}
	fs.Var(params, "p", "bind a parameter: -p ids=1,2,3 (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	db, err := engine.Open(*dir, engine.Options{DisableIndexes: *noIdx})
	if err != nil {
		return err
	}
	if *expr != "" {
		return execPrint(ctx, db, *expr, params, *explain, os.Stdout)
	}
	return prompt(ctx, db, params, *explain, os.Stdin, os.Stdout)
}

func execPrint(ctx context.Context, db *engine.DB, text string, params map[string]any, plan bool, w io.Writer) error {
	start := time.Now()
	res, err := db.Exec(ctx, text, params)
	if err != nil {
		return err
	}
	defer res.Release()
	printResult(w, res, 50)
	if plan && res.Plan != "" {
		fmt.Fprint(w, res.Plan)
	}
	fmt.Fprintf(w, "time: %s\n", time.Since(start).Round(time.Microsecond))
	return nil
}

// prompt reads statements terminated by ';' and runs each; errors are
// printed and the prompt goes on.
func prompt(ctx context.Context, db *engine.DB, params map[string]any, plan bool, in io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var buf strings.Builder
	fmt.Fprint(w, "stablerow> ")
	for sc.Scan() {
		line := sc.Text()
		if buf.Len() == 0 && (strings.TrimSpace(line) == `\q` || strings.TrimSpace(line) == "quit") {
			return nil
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		if strings.HasSuffix(strings.TrimSpace(line), ";") {
			if err := execPrint(ctx, db, buf.String(), params, plan, w); err != nil {
				fmt.Fprintln(w, "error:", err)
			}
			buf.Reset()
			fmt.Fprint(w, "stablerow> ")
		} else {
			fmt.Fprint(w, "       ...> ")
		}
	}
	fmt.Fprintln(w)
	return sc.Err()
}
