package form

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// A field that is absent or empty takes its default, as in Gotenberg; a
// repeated field's first value counts (see Values for all of them).

// Has reports whether the field was sent with a non-empty value.
func (f *Form) Has(name string) bool { return f.Value(name) != "" }

// Value is the field's first value, "" when absent.
func (f *Form) Value(name string) string {
	if v := f.fields[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Set gives the field one value, as if it had been sent so: what a page
// of calq serve implies from its own fields.
func (f *Form) Set(name, value string) { f.fields[name] = []string{value} }

// Values are all the values sent for the field, in upload order.
func (f *Form) Values(name string) []string { return f.fields[name] }

// Err is every bad field the getters met, one a line after "Invalid form
// data: " as in Gotenberg's replies, and last the lack of files
// (RequireInputs), as a 400 *Error; else a mistake found after the fields
// (failLate); else nil.
func (f *Form) Err() error {
	switch {
	case f.err != nil && f.noInputs != "":
		return &Error{Status: f.err.Status, Msg: f.err.Msg + "\n" + f.noInputs, Err: f.err.Err}
	case f.err != nil:
		return f.err
	case f.noInputs != "":
		return badRequest("%s", f.noInputs)
	case f.late != nil:
		return f.late
	}
	return nil
}

// Invalid records that the field's value is not what want describes
// ("an integer from 1 to 100").
func (f *Form) Invalid(name, want string) { f.invalidValue(name, f.Value(name), want) }

// invalidValue is Invalid for v, one of the field's values.
func (f *Form) invalidValue(name, v, want string) {
	f.fail(badRequest("form field '%s' is invalid (got %s, want %s)", name, quote(v), want))
}

// invalidBy records that the field's value failed to parse, with the
// parser's words as Gotenberg gives them ("strconv.ParseBool: parsing
// "foo": invalid syntax"); a long value, which those words would repeat,
// is said as Invalid says it.
func (f *Form) invalidBy(name string, cause error, want string) {
	f.invalidValueBy(name, f.Value(name), cause, want)
}

// invalidValueBy is invalidBy for v, one of the field's values.
func (f *Form) invalidValueBy(name, v string, cause error, want string) {
	if len(v) > maxQuoted || strings.ContainsFunc(v, unicode.IsControl) {
		f.invalidValue(name, v, want)
		return
	}
	f.resulting(name, v, cause)
}

// invalidBecause records that the field's value is refused for reason,
// which does not repeat the value ("value is inferior to 1").
func (f *Form) invalidBecause(name string, reason error) {
	f.resulting(name, f.Value(name), reason)
}

// resulting records Gotenberg's sentence for the field's value v and why
// it is refused.
func (f *Form) resulting(name, v string, reason error) {
	f.fail(badRequest("form field '%s' is invalid (got %s, resulting to %v)", name, quote(v), reason))
}

// Require records that the field is required when it is absent.
func (f *Form) Require(name string) {
	if !f.Has(name) {
		f.fail(badRequest("form field '%s' is required", name))
	}
}

// Unsupported records that calq cannot do what the field asks; honoured is
// what calq does instead, shown in the message when not empty.
func (f *Form) Unsupported(name, honoured string) {
	msg := fmt.Sprintf("form field '%s' is not supported by calq (got %s", name, quote(f.Value(name)))
	if honoured != "" {
		msg += "; calq only does " + honoured
	}
	f.fail(badRequest("%s)", msg))
}

// fail records a bad field: the first as it is, the next ones as lines
// of its message.
func (f *Form) fail(e *Error) {
	if f.err == nil {
		f.err = &Error{Status: e.Status, Msg: e.Msg, Err: e.Err}
		return
	}
	line := strings.TrimPrefix(e.Msg, invalidPrefix)
	if !slices.Contains(strings.Split(strings.TrimPrefix(f.err.Msg, invalidPrefix), "\n"), line) {
		f.err.Msg += "\n" + line
	}
}

// failLate records a mistake Gotenberg finds after reading the fields,
// in its own sentence: said only when no field is bad.
func (f *Form) failLate(e *Error) {
	if f.late == nil {
		f.late = e
	}
}

// String is the field's value, or def when absent.
func (f *Form) String(name, def string) string {
	if v := f.Value(name); v != "" {
		return v
	}
	return def
}

// Bool is the field's boolean value (true, false, 1, 0, t, f, ... as Go's
// strconv.ParseBool and Gotenberg read them), false when absent.
func (f *Form) Bool(name string) bool { return f.BoolOr(name, false) }

// BoolOr is Bool with a default.
func (f *Form) BoolOr(name string, def bool) bool {
	if p := f.OptBool(name); p != nil {
		return *p
	}
	return def
}

// OptBool is the field's boolean value, nil when absent or invalid.
func (f *Form) OptBool(name string) *bool {
	v := f.Value(name)
	if v == "" {
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		f.invalidBy(name, err, "true or false")
		return nil
	}
	return &b
}

// Int is the field's integer value, def when absent or invalid.
func (f *Form) Int(name string, def int) int {
	return f.IntCheck(name, def, func(int) error { return nil })
}

const (
	minInt = -1 << 31
	maxInt = 1<<31 - 1
)

// IntRange is the field's integer value, which must lie in [lo, hi]; def
// when absent or invalid. A value out of bounds is said in Gotenberg's
// words: "value is inferior to 1", "value is superior to 100".
func (f *Form) IntRange(name string, def, lo, hi int) int {
	return f.IntCheck(name, def, func(n int) error { return inRange(n, lo, hi) })
}

// inRange says why n is not in [lo, hi], nil when it is.
func inRange(n, lo, hi int) error {
	switch {
	case n < lo:
		return fmt.Errorf("value is inferior to %d", lo)
	case n > hi:
		return fmt.Errorf("value is superior to %d", hi)
	}
	return nil
}

// IntChoice is the field's integer value, which must be one of allowed; def
// when absent or invalid ("value is not 75, 150 or 300").
func (f *Form) IntChoice(name string, def int, allowed ...int) int {
	return f.IntCheck(name, def, func(n int) error { return oneOfInts(n, allowed) })
}

// oneOfInts says why n is not one of allowed, nil when it is.
func oneOfInts(n int, allowed []int) error {
	if slices.Contains(allowed, n) {
		return nil
	}
	words := make([]string, len(allowed))
	for i, a := range allowed {
		words[i] = strconv.Itoa(a)
	}
	return errors.New("value is not " + oneOf(words))
}

// IntCheck is the field's integer value, which check must accept; def when
// absent or invalid. check's error, or the parser's, is the reason the
// reply gives, as Gotenberg gives it ("resulting to value is inferior to
// 1").
func (f *Form) IntCheck(name string, def int, check func(int) error) int {
	v := f.Value(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		f.invalidBy(name, err, "an integer")
		return def
	}
	if err := cmp.Or(inRange(n, minInt, maxInt), check(n)); err != nil {
		f.invalidBecause(name, err)
		return def
	}
	return n
}

// Choice is the field's value, which must be one of allowed (compared
// without regard to case; the allowed spelling is returned); def when
// absent or invalid.
func (f *Form) Choice(name, def string, allowed ...string) string {
	v := f.Value(name)
	if v == "" {
		return def
	}
	for _, a := range allowed {
		if strings.EqualFold(v, a) {
			return a
		}
	}
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = "'" + a + "'"
	}
	f.Invalid(name, oneOf(quoted))
	return def
}

// oneOf lists choices: "75, 150 or 300".
func oneOf(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// JSON decodes the field's value into v, which must be one JSON value, and
// reports whether the field was present and valid. Numbers decoded into an
// interface are json.Number, so that large integers keep their digits.
func (f *Form) JSON(name string, v any) bool {
	return f.jsonValue(name, f.Value(name), "valid JSON", v)
}

// jsonValue is JSON for raw, one of the field's values; want describes
// the value's shape, for JSON of another shape (decoding's own words
// would name Go's types).
func (f *Form) jsonValue(name, raw, want string, v any) bool {
	if raw == "" {
		return false
	}
	if err := jsonSyntax(name, raw); err != nil {
		f.invalidValueBy(name, raw, err, want)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		f.invalidValue(name, raw, want)
		return false
	}
	return true
}

// jsonSyntax says why raw is not one JSON value, in encoding/json's words
// after "unmarshal <name>:", as Gotenberg's replies give them (and its
// clients and suite match them); nil when it is one.
func jsonSyntax(name, raw string) error {
	if err := json.Unmarshal([]byte(raw), new(json.RawMessage)); err != nil {
		return fmt.Errorf("unmarshal %s: %w", name, err)
	}
	return nil
}

// JSONObject is the field's value as a JSON object, nil when absent, null
// or invalid.
func (f *Form) JSONObject(name string) map[string]any {
	var v any
	if !f.JSON(name, &v) {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok && v != nil {
		f.Invalid(name, "a JSON object")
	}
	return m
}
