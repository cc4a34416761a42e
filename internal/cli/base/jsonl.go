package base

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSONLines prints a line of messageType per element of vs.
func WriteJSONLines[T any](w io.Writer, messageType string, vs []T) error {
	for _, v := range vs {
		if err := WriteJSONLine(w, messageType, v); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSONLine prints v as one compact JSON object on a line of its own,
// with "message_type" first. v must marshal to an object; a field of its
// own named message_type is replaced.
func WriteJSONLine(w io.Writer, messageType string, v any) error {
	var vb bytes.Buffer
	enc := json.NewEncoder(&vb)
	enc.SetEscapeHTML(false) // "<" and "&" of a text stay as they are
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode %s: %w", messageType, err)
	}
	b := bytes.TrimSuffix(vb.Bytes(), []byte("\n"))
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return fmt.Errorf("encode %s: not a JSON object: %w", messageType, err)
	}
	mt, _ := json.Marshal(messageType)
	var buf bytes.Buffer
	buf.WriteString(`{"message_type":`)
	buf.Write(mt)
	// Keep v's own field order: decode the keys in order.
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.Token() // {
	for dec.More() {
		t, _ := dec.Token()
		key := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("encode %s: %w", messageType, err)
		}
		if key == "message_type" {
			continue
		}
		k, _ := json.Marshal(key)
		buf.WriteByte(',')
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(raw)
	}
	buf.WriteString("}\n")
	_, err := w.Write(buf.Bytes())
	return err
}
