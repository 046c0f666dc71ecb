package taskjson

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Decode reads b as one T, refusing unknown fields and trailing data, then
// runs validate on it (nil: no check). Decoding errors wrap sentinel;
// validate's are returned as they are.
func Decode[T any](b []byte, sentinel error, validate func(*T) error) (*T, error) {
	v := new(T)
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return nil, fmt.Errorf("%w: %w", sentinel, err)
	}
	if d.More() {
		return nil, fmt.Errorf("%w: trailing data after the JSON value", sentinel)
	}
	if validate != nil {
		if err := validate(v); err != nil {
			return nil, err
		}
	}
	return v, nil
}
