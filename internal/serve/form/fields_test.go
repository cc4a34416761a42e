package form

import (
	"encoding/json"
	"reflect"
	"testing"
)

// formOf is a Form with the given fields, name then value, repeatable.
func formOf(kv ...string) *Form {
	f := &Form{fields: map[string][]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		f.fields[kv[i]] = append(f.fields[kv[i]], kv[i+1])
	}
	return f
}

func errMsg(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestGetters(t *testing.T) {
	for _, tc := range []struct {
		name    string
		form    *Form
		get     func(f *Form) any
		want    any
		wantErr string
	}{
		{"bool absent", formOf(), func(f *Form) any { return f.Bool("x") }, false, ""},
		{"bool empty is absent", formOf("x", ""), func(f *Form) any { return f.BoolOr("x", true) }, true, ""},
		{"bool true", formOf("x", "true"), func(f *Form) any { return f.Bool("x") }, true, ""},
		{"bool 1", formOf("x", "1"), func(f *Form) any { return f.Bool("x") }, true, ""},
		{"bool FALSE", formOf("x", "FALSE"), func(f *Form) any { return f.BoolOr("x", true) }, false, ""},
		{"bool bad", formOf("x", "yes"), func(f *Form) any { return f.Bool("x") }, false,
			"Invalid form data: form field 'x' is invalid (got 'yes', resulting to strconv.ParseBool: parsing \"yes\": invalid syntax)"},
		{"opt bool absent", formOf(), func(f *Form) any { return f.OptBool("x") == nil }, true, ""},
		{"first value counts", formOf("x", "false", "x", "true"), func(f *Form) any { return f.Bool("x") }, false, ""},
		{"int", formOf("x", " 42 "), func(f *Form) any { return f.Int("x", 7) }, 42, ""},
		{"int default", formOf(), func(f *Form) any { return f.Int("x", 7) }, 7, ""},
		{"int bad", formOf("x", "4.2"), func(f *Form) any { return f.Int("x", 7) }, 7,
			"Invalid form data: form field 'x' is invalid (got '4.2', resulting to strconv.Atoi: parsing \"4.2\": invalid syntax)"},
		{"int range", formOf("x", "0"), func(f *Form) any { return f.IntRange("x", 5, 1, 10) }, 5,
			"Invalid form data: form field 'x' is invalid (got '0', resulting to value is inferior to 1)"},
		{"int at least", formOf("x", "0"), func(f *Form) any { return f.IntRange("x", 5, 1, maxInt) }, 5,
			"Invalid form data: form field 'x' is invalid (got '0', resulting to value is inferior to 1)"},
		{"int choice", formOf("x", "150"), func(f *Form) any { return f.IntChoice("x", 0, 75, 150) }, 150, ""},
		{"int choice bad", formOf("x", "100"), func(f *Form) any { return f.IntChoice("x", 0, 75, 150, 300) }, 0,
			"Invalid form data: form field 'x' is invalid (got '100', resulting to value is not 75, 150 or 300)"},
		{"choice folds case", formOf("x", "PAGES"), func(f *Form) any { return f.Choice("x", "", "intervals", "pages") }, "pages", ""},
		{"choice bad", formOf("x", "none"), func(f *Form) any { return f.Choice("x", "", "intervals", "pages") }, "",
			"Invalid form data: form field 'x' is invalid (got 'none', want 'intervals' or 'pages')"},
		{"string", formOf("x", "v"), func(f *Form) any { return f.String("x", "d") }, "v", ""},
		{"string default", formOf(), func(f *Form) any { return f.String("x", "d") }, "d", ""},
		{"json", formOf("x", `{"a":[1,2]}`), func(f *Form) any {
			var v map[string][]int
			f.JSON("x", &v)
			return v
		}, map[string][]int{"a": {1, 2}}, ""},
		{"json trailing data", formOf("x", `{}}`), func(f *Form) any { return f.JSON("x", new(any)) }, false,
			"Invalid form data: form field 'x' is invalid (got '{}}', resulting to unmarshal x: invalid character '}' after top-level value)"},
		{"json object", formOf("x", `{"n":12345678901234567890}`), func(f *Form) any { return f.JSONObject("x") },
			map[string]any{"n": json.Number("12345678901234567890")}, ""},
		{"json object null", formOf("x", `null`), func(f *Form) any { return f.JSONObject("x") == nil }, true, ""},
		{"json not an object", formOf("x", `[1]`), func(f *Form) any { return f.JSONObject("x") == nil }, true,
			"Invalid form data: form field 'x' is invalid (got '[1]', want a JSON object)"},
		{"value shown bounded and clean", formOf("x", "a\x00\n"+string(make([]byte, 100))), func(f *Form) any { return f.Bool("x") }, false,
			"Invalid form data: form field 'x' is invalid (got 'a', want true or false)"},
		{"long value cut", formOf("x", "0123456789012345678901234567890123456789012345678901234567890123456789"), func(f *Form) any { return f.Bool("x") }, false,
			"Invalid form data: form field 'x' is invalid (got '0123456789012345678901234567890123456789012345678901234567890123…', want true or false)"},
		{"every error is a line, as in Gotenberg's replies", formOf("x", "bad", "y", "bad"), func(f *Form) any { return f.Bool("x") || f.Bool("y") }, false,
			"Invalid form data: form field 'x' is invalid (got 'bad', resulting to strconv.ParseBool: parsing \"bad\": invalid syntax)\n" +
				"form field 'y' is invalid (got 'bad', resulting to strconv.ParseBool: parsing \"bad\": invalid syntax)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.get(tc.form)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
			if msg := errMsg(tc.form.Err()); msg != tc.wantErr {
				t.Errorf("Err() = %q, want %q", msg, tc.wantErr)
			}
			if err := tc.form.Err(); err != nil && err.(*Error).Status != 400 {
				t.Errorf("status %d, want 400", err.(*Error).Status)
			}
		})
	}
}
