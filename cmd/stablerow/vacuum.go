package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table"
)

// errVacuumArgs: a bad command line for `stablerow vacuum`.
var errVacuumArgs = errkind.New(errkind.InvalidArgument, "vacuum")

// runVacuum is `stablerow vacuum -d DIR [-table t] [-grace DUR] [-dry-run]`:
// SQL VACUUM with the grace period and a dry run on the command line.
func runVacuum(ctx context.Context, args []string) error {
	return vacuumCmd(ctx, os.Stdout, args)
}

func vacuumCmd(ctx context.Context, w io.Writer, args []string) error {
	fs := newFlags("vacuum", "vacuum [-d DIR] [-table t] [-grace 1h] [-dry-run]: remove files no version references")
	dir := fs.String("d", ".stablerow", "database directory")
	name := fs.String("table", "", "vacuum this table only (default: every table, and the directories that are no table)")
	grace := fs.Duration("grace", table.DefaultCleanupMinAge,
		"keep unreferenced files younger than this (0s: remove every unreferenced file; a running writer's files are kept whatever the grace, by its write intent)")
	dry := fs.Bool("dry-run", false, "report what would be removed, remove nothing")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errVacuumArgs, fs.Arg(0))
	}
	if *grace < 0 {
		return fmt.Errorf("%w: -grace %s is negative", errVacuumArgs, *grace)
	}
	db, err := openDB(*dir, engine.Options{}, "")
	if err != nil {
		return err
	}
	opt := engine.VacuumOptions{Grace: *grace, DryRun: *dry}
	if *grace == 0 {
		opt.Grace = -1 // engine: 0 is the default, negative is no guard
	}
	rep, err := db.Vacuum(ctx, *name, opt)
	if err == nil || len(rep.Tables)+len(rep.Leftovers) > 0 {
		printVacuum(w, rep, *grace, *dry) // what was done before a failure too
	}
	return err
}

// printVacuum writes one line per table and per directory that is no
// table, then the total, e.g.
//
//	table t: removed 3 files, 31457280 bytes (30.0 MiB); kept 0 files younger than 1h0m0s
//	directory u (no committed manifest): removed 1 file, 120 bytes (120 B)
//	total: removed 4 files, 31457400 bytes (30.0 MiB)
func printVacuum(w io.Writer, rep *engine.VacuumReport, grace time.Duration, dry bool) {
	removed := "removed"
	if dry {
		removed = "would remove"
	}
	kept := func(n int) string {
		if grace == 0 && n == 0 {
			return ""
		}
		return fmt.Sprintf("; kept %s younger than %s", plural(n, "file"), grace)
	}
	// Files a running writer's intent names are kept whatever the grace.
	inFlight := func(t engine.TableVacuum) string {
		s := ""
		if t.FilesInFlight > 0 || t.IntentsLive > 0 {
			s = fmt.Sprintf("; kept %s of %s in progress", plural(t.FilesInFlight, "file"), plural(t.IntentsLive, "write"))
		}
		if t.IntentsExpired > 0 {
			s += fmt.Sprintf("; %s %s", removed, plural(t.IntentsExpired, "expired write intent"))
		}
		return s
	}
	for _, t := range rep.Tables {
		fmt.Fprintf(w, "table %s: %s %s, %s%s%s\n", t.Table, removed, plural(t.FilesDeleted+t.TempFilesDeleted, "file"),
			bytesText(t.BytesDeleted+t.TempBytesDeleted), kept(t.FilesTooYoung), inFlight(t))
	}
	for _, l := range rep.Leftovers {
		switch {
		case l.Kind == engine.LeftoverForeign:
			fmt.Fprintf(w, "directory %s (%s: %s)\n", l.Dir, l.Kind, l.Note)
		case l.Removed:
			fmt.Fprintf(w, "directory %s (%s): %s %s, %s\n", l.Dir, l.Kind, removed, plural(l.Files, "file"), bytesText(l.Bytes))
		default:
			fmt.Fprintf(w, "directory %s (%s): kept, changed less than %s ago\n", l.Dir, l.Kind, grace)
		}
	}
	files, bytes := rep.Removed()
	fmt.Fprintf(w, "total: %s %s, %s\n", removed, plural(files, "file"), bytesText(bytes))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// bytesText is an exact byte count, then a rounded one for people.
func bytesText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes (%d B)", n, n)
	}
	f, suffix := float64(n), ""
	for _, s := range []string{"KiB", "MiB", "GiB", "TiB"} {
		f /= unit
		suffix = s
		if f < unit {
			break
		}
	}
	return fmt.Sprintf("%d bytes (%.1f %s)", n, f, suffix)
}
