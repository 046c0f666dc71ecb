package lance

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/stablerow/stablerow/bench/peer"
)

// Engine is a LanceDB table t in a Node process.
type Engine struct {
	name    string
	dataDir string // the LanceDB database directory
	tmp     string // scratch files exchanged with Node
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
}

var (
	_ peer.Engine    = (*Engine)(nil)
	_ peer.SelfTimer = (*Engine)(nil)
)

// Available reports whether scriptDir holds an installed peer (node on the
// PATH, @lancedb/lancedb under node_modules), else an error wrapping
// ErrNotInstalled that says what is missing.
func Available(scriptDir string) error {
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("%w: node is not on the PATH", ErrNotInstalled)
	}
	if _, err := os.Stat(filepath.Join(scriptDir, "node_modules", "@lancedb", "lancedb", "package.json")); err != nil {
		return fmt.Errorf("%w: %s has no node_modules/@lancedb/lancedb", ErrNotInstalled, scriptDir)
	}
	return nil
}

// Start runs peer.cjs from scriptDir, keeping the database in dataDir.
func Start(scriptDir, dataDir string) (*Engine, error) {
	if err := Available(scriptDir); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "lancepeer-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("node", "--expose-gc", "peer.cjs")
	cmd.Dir = scriptDir
	cmd.Stderr = os.Stderr
	// LanceDB logs a warning per created dataset; errors still show.
	cmd.Env = append(os.Environ(), "LANCEDB_LOG=error", "RUST_LOG=error")
	in, err := cmd.StdinPipe()
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("%w: start node: %v", ErrNotInstalled, err)
	}
	return &Engine{name: "lancedb", dataDir: dataDir, tmp: tmp, cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
}

// Close ends the Node process and removes the scratch files (not the
// database).
func (e *Engine) Close() error {
	if e.cmd == nil {
		return nil
	}
	e.in.Close()
	err := e.cmd.Wait()
	e.cmd = nil
	os.RemoveAll(e.tmp)
	return err
}

// Name implements peer.Engine.
func (e *Engine) Name() string { return e.name }

// reply is every field any op returns.
type reply struct {
	Error   string          `json:"error"`
	MS      float64         `json:"ms"`
	RawMS   float64         `json:"rawMs"`
	Rows    int             `json:"rows"`
	Deleted int64           `json:"deleted"`
	Updated int64           `json:"updated"`
	Stats   json.RawMessage `json:"stats"`
}

func (e *Engine) call(ctx context.Context, req map[string]any) (*reply, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if e.cmd == nil {
		return nil, fmt.Errorf("%w: engine closed", ErrPeer)
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if _, err := e.in.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("%w: %s: write: %v", ErrPeer, req["op"], err)
	}
	line, err := e.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("%w: %s: read: %v", ErrPeer, req["op"], err)
	}
	var r reply
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrProtocol, req["op"], err)
	}
	if r.Error != "" {
		return nil, fmt.Errorf("%w: %s: %s", ErrPeer, req["op"], r.Error)
	}
	return &r, nil
}

func ms(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

// writeFile writes n little-endian 8-byte values given by at.
func writeFile(path string, n int, at func(i int) uint64) error {
	buf := make([]byte, 8*n)
	for i := range n {
		binary.LittleEndian.PutUint64(buf[8*i:], at(i))
	}
	return os.WriteFile(path, buf, 0o644)
}

// Load creates t from the generator's rows [0, rows): row i is (K(i),
// Payload(i)) and gets row id i. It returns LanceDB's time to create the
// table (the files are written before, untimed).
func (e *Engine) Load(ctx context.Context, rows int) (time.Duration, error) {
	kp, pp := filepath.Join(e.tmp, "k.bin"), filepath.Join(e.tmp, "payload.bin")
	if err := writeFile(kp, rows, func(i int) uint64 { return uint64(peer.K(uint64(i))) }); err != nil {
		return 0, err
	}
	if err := writeFile(pp, rows, func(i int) uint64 { return math.Float64bits(peer.Payload(uint64(i))) }); err != nil {
		return 0, err
	}
	defer os.Remove(kp)
	defer os.Remove(pp)
	r, err := e.call(ctx, map[string]any{"op": "load", "dir": e.dataDir, "k": kp, "payload": pp, "rows": rows})
	if err != nil {
		return 0, err
	}
	return ms(r.MS), nil
}

// Reopen connects again and opens t (a cold table handle: LanceDB's caches
// start empty; the OS page cache is not dropped). It returns the open time.
func (e *Engine) Reopen(ctx context.Context) (time.Duration, error) {
	r, err := e.call(ctx, map[string]any{"op": "open", "dir": e.dataDir})
	if err != nil {
		return 0, err
	}
	return ms(r.MS), nil
}

// take runs a take of q's ids in Node, the answer written to out when out
// is not "".
func (e *Engine) take(ctx context.Context, q peer.Query, out string) (*reply, error) {
	cols := "payload"
	switch q.Kind {
	case peer.KindTakePayload:
	case peer.KindContent:
		cols = "content"
	default:
		return nil, peer.UnsupportedKind(e.name, q.Kind)
	}
	ip := filepath.Join(e.tmp, "ids.bin")
	if err := writeFile(ip, len(q.IDs), func(i int) uint64 { return q.IDs[i] }); err != nil {
		return nil, err
	}
	return e.call(ctx, map[string]any{"op": "take", "ids": ip, "cols": cols, "out": out})
}

// RunTimed implements peer.SelfTimer: Node's time for the take, the seed
// contract restored.
func (e *Engine) RunTimed(ctx context.Context, q peer.Query) (time.Duration, error) {
	r, err := e.take(ctx, q, "")
	if err != nil {
		return 0, err
	}
	return ms(r.MS), nil
}

// Run implements peer.Engine: the take's answer, read back from Node.
func (e *Engine) Run(ctx context.Context, q peer.Query) (peer.Answer, error) {
	out := filepath.Join(e.tmp, "answer.bin")
	if _, err := e.take(ctx, q, out); err != nil {
		return nil, err
	}
	defer os.Remove(out)
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	return decodeAnswer(b, len(q.IDs), q.Kind)
}

// decodeAnswer reads peer.cjs's answer file: valid bytes[n], k int64[n],
// payload float64[n], little-endian.
func decodeAnswer(b []byte, n int, kind peer.Kind) (peer.Answer, error) {
	if len(b) != 17*n {
		return nil, fmt.Errorf("%w: answer of %d bytes for %d ids", ErrProtocol, len(b), n)
	}
	ord := make([]int64, n)
	valid := make([]bool, n)
	k := make([]int64, n)
	p := make([]float64, n)
	for i := range n {
		ord[i] = int64(i + 1)
		switch b[i] {
		case 0:
		case 1:
			valid[i] = true
		default:
			return nil, fmt.Errorf("%w: validity byte %d at row %d", ErrProtocol, b[i], i)
		}
		k[i] = int64(binary.LittleEndian.Uint64(b[n+8*i:]))
		p[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[9*n+8*i:]))
	}
	if kind == peer.KindContent {
		return &peer.ContentRows{Ord: ord, K: k, Payload: p, Valid: valid}, nil
	}
	return &peer.TakeRows{Ord: ord, Addr: make([]uint64, n), AddrValid: valid,
		Payload: p, PayloadValid: valid, NoAddr: true}, nil
}

// Explain implements peer.Engine: what LanceDB did, from one run.
func (e *Engine) Explain(ctx context.Context, q peer.Query) (string, error) {
	r, err := e.take(ctx, q, "")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("takeRowIds(%d ids).withRowId().select([payload]) returned %d rows (misses and repeats dropped, address order) in %.2f ms; "+
		"request order and NULLs restored by a row id hash map, %.2f ms in all", len(q.IDs), r.Rows, r.RawMS, r.MS), nil
}

// Delete implements peer.Engine.
func (e *Engine) Delete(ctx context.Context, pred string) (int64, error) {
	r, err := e.call(ctx, map[string]any{"op": "delete", "pred": pred})
	if err != nil {
		return 0, err
	}
	return r.Deleted, nil
}

// Update rewrites the rows matching where (SET payload = payload: new
// copies, same content, same row ids) and returns its time.
func (e *Engine) Update(ctx context.Context, where string) (time.Duration, error) {
	r, err := e.call(ctx, map[string]any{"op": "update", "where": where})
	if err != nil {
		return 0, err
	}
	return ms(r.MS), nil
}

// Optimize compacts t and removes old versions; it returns its time and
// LanceDB's statistics (JSON).
func (e *Engine) Optimize(ctx context.Context) (time.Duration, string, error) {
	r, err := e.call(ctx, map[string]any{"op": "optimize"})
	if err != nil {
		return 0, "", err
	}
	return ms(r.MS), string(r.Stats), nil
}

// DiskBytes is the size of the files under the database directory.
func DiskBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	return n, err
}
