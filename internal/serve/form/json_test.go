package form

import "testing"

// TestJSONFieldErrors: every JSON form field reports a value that is not
// JSON in Go's words after "resulting to unmarshal <field>:", as Gotenberg
// does (its clients and suite match them), and a value of JSON but of
// another shape with what calq wants, in words without Go's types.
func TestJSONFieldErrors(t *testing.T) {
	const foo = "invalid character 'o' in literal false (expecting 'a')"
	embeds := func(v string) *Form {
		return &Form{fields: formOf("embedsMetadata", v).fields, Files: []File{{Name: "a.xml", Path: "/d/2.xml", Field: "embeds"}}}
	}
	for _, tc := range []struct {
		name, route string
		form        *Form
		want        string
	}{
		{"bookmarks/write foo", "bookmarks/write", formOf("bookmarks", "foo"),
			"Invalid form data: form field 'bookmarks' is invalid (got 'foo', resulting to unmarshal bookmarks: " + foo + ")"},
		{"merge bookmarks foo", "merge", formOf("bookmarks", "foo"),
			"Invalid form data: form field 'bookmarks' is invalid (got 'foo', resulting to unmarshal bookmarks: " + foo + ")"},
		{"bookmarks cut short", "bookmarks/write", formOf("bookmarks", `[{"title":`),
			"Invalid form data: form field 'bookmarks' is invalid (got '[{\"title\":', resulting to unmarshal bookmarks: unexpected end of JSON input)"},
		{"bookmarks trailing text", "bookmarks/write", formOf("bookmarks", `[] x`),
			"Invalid form data: form field 'bookmarks' is invalid (got '[] x', resulting to unmarshal bookmarks: invalid character 'x' after top-level value)"},
		{"metadata foo", "metadata/write", formOf("metadata", "foo"),
			"Invalid form data: form field 'metadata' is invalid (got 'foo', resulting to unmarshal metadata: " + foo + ")"},
		{"metadata cut short", "metadata/write", formOf("metadata", `{"Title":`),
			"Invalid form data: form field 'metadata' is invalid (got '{\"Title\":', resulting to unmarshal metadata: unexpected end of JSON input)"},
		{"metadata a list", "metadata/write", formOf("metadata", `["a"]`),
			"Invalid form data: form field 'metadata' is invalid (got '[\"a\"]', want a JSON object)"},
		{"embedsMetadata foo", "embed", embeds("foo"),
			"Invalid form data: form field 'embedsMetadata' is invalid (got 'foo', resulting to unmarshal embedsMetadata: " + foo + ")"},
		{"embedsMetadata of strings", "embed", embeds(`{"a.xml":"text/xml"}`),
			"Invalid form data: form field 'embedsMetadata' is invalid (got '{\"a.xml\":\"text/xml\"}', want a JSON object of {\"mimeType\", \"relationship\"} by file name)"},
		{"stampOptions foo", "stamp", formOf("stampSource", "text", "stampExpression", "S", "stampOptions", "foo"),
			"Invalid form data: form field 'stampOptions' is invalid (got 'foo', resulting to unmarshal stampOptions: " + foo + ")"},
		{"watermarkOptions a list", "watermark", formOf("watermarkSource", "text", "watermarkExpression", "W", "watermarkOptions", `["a"]`),
			"Invalid form data: form field 'watermarkOptions' is invalid (got '[\"a\"]', want a JSON object of pdfcpu options with plain values)"},
		{"the second watermarkOptions", "watermark", formOf("watermarkSource", "text", "watermarkExpression", "W", "watermarkOptions", `{}`,
			"watermarkSource", "text", "watermarkExpression", "V", "watermarkOptions", "bar"),
			"Invalid form data: form field 'watermarkOptions' is invalid (got 'bar', resulting to unmarshal watermarkOptions: invalid character 'b' looking for beginning of value)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := PDFEngines(tc.route, tc.form)
			if got := errMsg(err); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
