package main

import (
	"bufio"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeBlock is one fenced code block of README.md.
type readmeBlock struct {
	lang   string // the info string's first word ("sh", "go", ...)
	info   string // the whole info string ("sh runnable")
	line   int    // line of the opening fence
	text   string
	notRun string // the reason of a <!-- not run: ... --> comment just above it
}

var notRunComment = regexp.MustCompile(`^<!--\s*not run:\s*(.*?)\s*-->$`)

func readmeBlocks(t *testing.T) []readmeBlock {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []readmeBlock
	var cur *readmeBlock
	var text strings.Builder
	lastReason := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			info := strings.TrimSpace(strings.TrimPrefix(line, "```"))
			lang, _, _ := strings.Cut(info, " ")
			cur = &readmeBlock{lang: lang, info: info, line: n, notRun: lastReason}
			text.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.text = text.String()
			blocks = append(blocks, *cur)
			cur = nil
			lastReason = ""
		case cur != nil:
			text.WriteString(line + "\n")
		default:
			if m := notRunComment.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				lastReason = m[1]
			} else if strings.TrimSpace(line) != "" {
				lastReason = ""
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

// readmePrelude runs `go run ./cmd/stablerow ARGS` as the binary under test
// (built from the same source), so the README's commands run as written;
// a failing command stops the block and is named.
const readmePrelude = `set -eo pipefail
go() { if [ "$1" = run ] && [ "$2" = ./cmd/stablerow ]; then shift 2; "$STABLEROW_BIN" "$@"; else command go "$@"; fi; }
trap 'echo "README command failed (exit $?): $BASH_COMMAND" >&2' ERR
`

// TestREADMECommands runs every shell command of README.md's blocks marked
// "sh runnable", in order, in one fresh directory (with the repository's
// testdata beside it), and checks each exits 0. A sh block not marked
// runnable must say why just above it (<!-- not run: reason -->), and a
// command line inside a runnable block can be left out with a trailing
// "# not run: reason"; the test prints what it left out and why, and fails
// on a sh block that is neither run nor explained.
func TestREADMECommands(t *testing.T) {
	tmp := t.TempDir()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(repo, "testdata"), filepath.Join(tmp, "testdata")); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, b := range readmeBlocks(t) {
		if b.lang != "sh" && b.lang != "bash" && b.lang != "console" && b.lang != "shell" {
			continue
		}
		if !strings.Contains(" "+b.info+" ", " runnable ") {
			if b.notRun == "" {
				t.Errorf("README.md:%d: a %s block neither marked runnable (```sh runnable) nor explained (<!-- not run: reason --> above it)", b.line, b.lang)
			} else {
				t.Logf("left out README.md:%d block: %s", b.line, b.notRun)
			}
			continue
		}
		var script strings.Builder
		for i, line := range strings.Split(b.text, "\n") {
			if _, why, ok := strings.Cut(line, "# not run:"); ok {
				t.Logf("left out README.md:%d: %s (%s)", b.line+1+i, strings.TrimSpace(strings.SplitN(line, "#", 2)[0]), strings.TrimSpace(why))
				continue
			}
			script.WriteString(line + "\n")
		}
		cmd := exec.Command("bash", "-c", readmePrelude+script.String())
		cmd.Dir = tmp
		cmd.Env = append(os.Environ(), "STABLEROW_BIN="+bin, "STABLEROW_DEBUG=", "STABLEROW_HISTORY=-")
		cmd.Stdin = nil // the interactive prompt reads an empty, non-terminal input and ends
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("README.md:%d block: %v\n%s", b.line, err, out)
		}
		ran++
	}
	if ran == 0 {
		t.Fatal("README.md has no block marked runnable")
	}
	checkIgnored(t, repo, tmp)
}

// checkIgnored: every file the README's commands wrote (in dir, standing
// for the repository root) is in .gitignore, so following the README does
// not leave the work tree dirty.
func checkIgnored(t *testing.T, repo, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Logf("left out the .gitignore check: no git on this machine (%v)", err)
		return
	}
	if err := exec.Command("git", "-C", repo, "rev-parse", "--git-dir").Run(); err != nil {
		t.Logf("left out the .gitignore check: %s is not a git work tree (%v)", repo, err)
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		name := e.Name()
		if name == "testdata" {
			continue // the repository's own, linked in
		}
		if e.IsDir() {
			name += "/"
		}
		cmd := exec.Command("git", "-C", repo, "check-ignore", "--no-index", "-q", name)
		if err := cmd.Run(); err != nil {
			t.Errorf("the README's commands write %s, which .gitignore does not ignore (%v)", name, err)
		}
	}
}

// TestREADMEGoExample: the README's Go example is the body of Example in
// example_test.go (between its README markers), which go test compiles,
// runs and checks against its Output block.
func TestREADMEGoExample(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "example_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "// README:begin\n")
	body, _, ok2 := strings.Cut(body, "\t// README:end\n")
	if !ok || !ok2 {
		t.Fatal("example_test.go lacks the README:begin/README:end markers")
	}
	var want strings.Builder
	for _, line := range strings.SplitAfter(body, "\n") {
		want.WriteString(strings.TrimPrefix(line, "\t"))
	}
	var goBlocks []readmeBlock
	for _, b := range readmeBlocks(t) {
		if b.lang == "go" {
			goBlocks = append(goBlocks, b)
		}
	}
	if len(goBlocks) != 1 {
		t.Fatalf("README.md has %d go blocks, want the one taken from example_test.go", len(goBlocks))
	}
	if got := goBlocks[0].text; got != want.String() {
		t.Fatalf("README.md:%d go block differs from example_test.go's Example; want:\n%s", goBlocks[0].line, want.String())
	}
}

// TestREADMELayout: the Layout section of README.md lists every package of
// the module (a row of its table per package, `go list ./...`) and names
// every nested module.
func TestREADMELayout(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(data), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no Layout section")
	}
	layout, _, _ = strings.Cut(layout, "\n## ")
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Module.Path}}", "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, mod, _ := strings.Cut(line, " ")
		rel := strings.TrimPrefix(strings.TrimPrefix(path, mod), "/")
		if rel == "" {
			continue // the module root holds only example_test.go
		}
		if !strings.Contains(layout, "| `"+rel+"` |") {
			t.Errorf("README.md's Layout has no row for package %s", rel)
		}
	}
	root := filepath.Join("..", "..")
	var mods []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" && filepath.Dir(p) != root {
			mods = append(mods, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) == 0 {
		t.Fatal("found no nested module (bench, difftest, s3test hold one each)")
	}
	for _, m := range mods {
		name := filepath.Base(filepath.Dir(m))
		if !strings.Contains(layout, "`"+name) {
			t.Errorf("README.md's Layout does not name the nested module %s", filepath.Dir(m))
		}
	}
}
