package ingest

import (
	"errors"
	"strings"
	"testing"
)

// DuckDB declares the functions whose file it does not track under the
// standard extension directory (consumer-testing's TPC-H plans: equal:i64_i64,
// sum:decimal, lt:date_date). They are standard functions: before the
// directory had a URN of its own they migrated to
// "extension:github.com:extensions", whose functions the planner refused
// as another extension's ("unsupported function: lt:date_date of
// extension extension:github.com:extensions").
func TestStandardDirectoryURI(t *testing.T) {
	for uri, want := range map[string]string{
		"https://github.com/substrait-io/substrait/blob/main/extensions/":           StandardDirectoryURN,
		"https://github.com/substrait-io/substrait/blob/v0.57.0/extensions/":        StandardDirectoryURN,
		"https://raw.githubusercontent.com/substrait-io/substrait/main/extensions/": StandardDirectoryURN,
		// A file in it is that file's URN; another repository's
		// directory is its own extension.
		"https://github.com/substrait-io/substrait/blob/main/extensions/functions_comparison.yaml": "extension:io.substrait:functions_comparison",
		"https://github.com/example/substrait/blob/main/extensions/":                               "extension:github.com:extensions",
		"https://example.com/extensions/":                                                          "extension:example.com:extensions",
	} {
		if got := URNOfURI(uri); got != want {
			t.Errorf("URNOfURI(%q) = %q, want %q", uri, got, want)
		}
	}
	plan := func(uri string) []byte {
		return []byte(`{
		  "extensionUris": [{"extensionUriAnchor": 1, "uri": "` + uri + `"}],
		  "extensions": [{"extensionFunction": {"extensionUriReference": 1, "functionAnchor": 1, "name": "equal:i64_i64"}}],
		  "relations": [{"root": {"names": ["k", "b"], "input": {"project": {"common": {"direct": {}},
		    "input": {"read": {"common": {"direct": {}}, "baseSchema": {"names": ["k"], "struct": {"types": [{"i64": {"nullability": "NULLABILITY_REQUIRED"}}]}},
		      "namedTable": {"names": ["t"]}}},
		    "expressions": [{"scalarFunction": {"functionReference": 1,
		      "outputType": {"bool": {"nullability": "NULLABILITY_REQUIRED"}},
		      "arguments": [{"value": {"selection": {"directReference": {"structField": {"field": 0}}, "rootReference": {}}}},
		                    {"value": {"selection": {"directReference": {"structField": {"field": 0}}, "rootReference": {}}}}]}}]}}}}]
		}`)
	}
	p, err := DecodePlan(plan("https://github.com/substrait-io/substrait/blob/main/extensions/"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Validate(p, nil); err != nil {
		t.Fatalf("a standard function under the directory URI: %v", err)
	}
	if p, err = DecodePlan(plan("https://example.com/extensions/")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Validate(p, nil); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "equal:i64_i64 of extension extension:example.com:extensions") {
		t.Fatalf("another extension's function: got %v, want ErrUnsupported naming it", err)
	}
}
