package plan

import (
	"bytes"
	"fmt"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// DecodePlan reads a Substrait plan in either of its interchange forms:
// protobuf JSON (first non-space byte '{') or binary protobuf. Unknown
// JSON fields are an error, not silently dropped: a plan from a producer
// that still writes the removed `extension_uris` would otherwise lose its
// function references.
func DecodePlan(data []byte) (*substraitpb.Plan, error) {
	var pb substraitpb.Plan
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%w: empty plan", ErrInvalidPlan)
	}
	if trimmed[0] == '{' {
		if err := protojson.Unmarshal(trimmed, &pb); err != nil {
			return nil, fmt.Errorf("%w: JSON: %w", ErrInvalidPlan, err)
		}
		return &pb, nil
	}
	if err := proto.Unmarshal(data, &pb); err != nil {
		return nil, fmt.Errorf("%w: protobuf: %w", ErrInvalidPlan, err)
	}
	return &pb, nil
}

// EncodeJSON writes a plan as indented protobuf JSON.
func EncodeJSON(p *substraitpb.Plan) ([]byte, error) {
	return protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(p)
}
