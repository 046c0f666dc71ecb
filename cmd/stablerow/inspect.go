package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/stablerow/stablerow/rowmap"
)

func runInspect(_ context.Context, args []string) error {
	if len(args) != 1 {
		return errors.New("inspect takes one path")
	}
	path := args[0]
	if !strings.HasSuffix(path, ".rowmap") {
		return fmt.Errorf("inspect: %s: only .rowmap files are supported so far", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	src, err := rowmap.FileSource(f)
	if err != nil {
		return err
	}
	r, err := rowmap.Open(src)
	if err != nil {
		return err
	}
	return r.Describe(os.Stdout)
}
