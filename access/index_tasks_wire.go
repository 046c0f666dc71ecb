package access

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stablerow/stablerow/internal/taskjson"
	"github.com/stablerow/stablerow/table"
)

// Validation and strict JSON decoding of index build plans, tasks and
// results: unknown fields, trailing data, other format versions and
// inconsistent content are table.ErrTask.

// DecodeIndexBuildPlan, DecodeIndexBuildTask and DecodeIndexBuildResult
// read the JSON encodings (encoding/json of the types).
func DecodeIndexBuildPlan(b []byte) (*IndexBuildPlan, error) {
	return taskjson.Decode(b, table.ErrTask, (*IndexBuildPlan).validate)
}

// DecodeIndexBuildTask: see DecodeIndexBuildPlan.
func DecodeIndexBuildTask(b []byte) (*IndexBuildTask, error) {
	return taskjson.Decode(b, table.ErrTask, (*IndexBuildTask).validate)
}

// DecodeIndexBuildResult: see DecodeIndexBuildPlan.
func DecodeIndexBuildResult(b []byte) (*IndexBuildResult, error) {
	return taskjson.Decode(b, table.ErrTask, (*IndexBuildResult).validate)
}

func taskErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{table.ErrTask}, args...)...)
}

// validPrefix: an index or run prefix this package writes.
func validPrefix(p string) bool {
	return strings.HasPrefix(p, "_indices/") && strings.HasSuffix(p, "/") && len(p) > len("_indices//") &&
		!strings.Contains(p, "..") && strings.Count(p, "/") == 2
}

// validKeys: no key list, or 1 to 32 named key columns starting with column.
func validKeys(column string, keys []table.IndexKey) bool {
	if keys == nil {
		return true
	}
	if len(keys) == 0 || len(keys) > 32 || keys[0].Column != column {
		return false
	}
	return !slices.ContainsFunc(keys, func(k table.IndexKey) bool { return k.Column == "" })
}

func ascending(ids []uint32) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			return false
		}
	}
	return true
}

func (p *IndexBuildPlan) validate() error {
	if p == nil || p.Format != IndexTaskFormat {
		return taskErrorf("index build plan format is not %d", IndexTaskFormat)
	}
	if p.ID == "" || p.Name == "" || p.Column == "" || len(p.Tasks) == 0 {
		return taskErrorf("index build plan without id, name, column or tasks")
	}
	if !validKeys(p.Column, p.Keys) {
		return taskErrorf("index build plan: key columns do not start with its column %q", p.Column)
	}
	if p.Replace != "" && !validPrefix(p.Replace) || !ascending(p.Fragments) {
		return taskErrorf("index build plan: bad prefix or fragments out of order")
	}
	var covered []uint32
	for i := range p.Tasks {
		k := &p.Tasks[i]
		if err := k.validate(); err != nil {
			return err
		}
		if !p.Owns(&k.TaskHeader, i) || k.Name != p.Name || k.Column != p.Column || !slices.Equal(k.Keys, p.Keys) {
			return taskErrorf("index build task %d does not belong to plan %q", i, p.ID)
		}
		if k.Remap != "" {
			if i != 0 || k.Remap != p.Replace {
				return taskErrorf("index build task %d: a remap task is the first of an optimize plan", i)
			}
			covered = append(covered, k.Keep...)
		}
		for _, s := range k.Sources {
			covered = append(covered, s.Fragment)
		}
	}
	if p.Replace != "" && p.Tasks[0].Remap == "" {
		return taskErrorf("optimize plan without its remap task")
	}
	slices.Sort(covered)
	if !slices.Equal(covered, p.Fragments) {
		return taskErrorf("index build plan: tasks cover %d fragments, not its %d", len(covered), len(p.Fragments))
	}
	return nil
}

func (k *IndexBuildTask) validate() error {
	if k == nil || k.Format != IndexTaskFormat {
		return taskErrorf("index build task format is not %d", IndexTaskFormat)
	}
	if k.Plan == "" || k.Name == "" || k.Column == "" || k.Seq < 0 {
		return taskErrorf("index build task %d without plan, name or column", k.Seq)
	}
	if !validKeys(k.Column, k.Keys) {
		return taskErrorf("index build task %d: key columns do not start with its column %q", k.Seq, k.Column)
	}
	if k.Remap != "" {
		if !validPrefix(k.Remap) || len(k.Sources) > 0 || !ascending(k.Keep) {
			return taskErrorf("index build task %d: bad remap task", k.Seq)
		}
		return nil
	}
	if len(k.Keep) > 0 {
		return taskErrorf("index build task %d: keep without remap", k.Seq)
	}
	for i, s := range k.Sources {
		if s.LiveRows > s.PhysicalRows || s.DataFile == "" || i > 0 && s.Fragment <= k.Sources[i-1].Fragment {
			return taskErrorf("index build task %d: bad or unordered source fragment %d", k.Seq, s.Fragment)
		}
	}
	return nil
}

func (r *IndexBuildResult) validate() error {
	if r == nil || r.Format != IndexTaskFormat {
		return taskErrorf("index build result format is not %d", IndexTaskFormat)
	}
	if r.Plan == "" || r.Seq < 0 || !validPrefix(r.Run) {
		return taskErrorf("index build result %d without plan or with a bad run prefix", r.Seq)
	}
	return nil
}
