package convert

import (
	"strings"
	"testing"
)

// TestURLItems: each URL becomes an item named from its host, port and
// path, safely; a URL given twice is taken once; one that is not a web
// address fails, saying why.
func TestURLItems(t *testing.T) {
	tests := []struct {
		name, url, rel, fail string
	}{
		{"host alone", "https://example.com", "example.com.url", ""},
		{"host and slash", "https://Example.COM/", "example.com.url", ""},
		{"port and path", "http://127.0.0.1:8080/a/b.html", "127.0.0.1_8080_a_b.url", ""},
		{"query and fragment dropped from the name", "http://h/p?x=1#top", "h_p.url", ""},
		{"unsafe bytes", "http://h/../../etc/passwd%00/..;rm -rf", "h_etc_passwd_rm_-rf.url", ""},
		{"dots never lead", "http://h/.hidden/.x", "h_hidden_x.url", ""},
		{"long path bounded", "http://h/" + strings.Repeat("a", 500), "h_" + strings.Repeat("a", maxURLName-2) + ".url", ""},
		{"another scheme", "ftp://h/x", "", "not a web address: want http:// or https://"},
		{"a file URL", "file:///etc/passwd", "", "not a web address: want http:// or https://"},
		{"no host", "http:///x", "", "not a web address: no host"},
		{"a path", "report.html", "", "not a web address: want http:// or https://"},
		{"does not parse", "http://h/%zz", "", `not a valid URL: invalid URL escape "%zz"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, _ := urlItems([]string{tt.url})
			if len(items) != 1 {
				t.Fatalf("urlItems(%q): got %d items, want 1", tt.url, len(items))
			}
			it := items[0]
			if it.Fail != tt.fail {
				t.Errorf("urlItems(%q): got Fail %q, want %q", tt.url, it.Fail, tt.fail)
			}
			if tt.fail == "" && it.Rel != tt.rel {
				t.Errorf("urlItems(%q): got Rel %q, want %q", tt.url, it.Rel, tt.rel)
			}
			if tt.fail != "" && it.Input != tt.url {
				t.Errorf("urlItems(%q): a failed item's Input is %q, want the URL as given", tt.url, it.Input)
			}
		})
	}
	items, dups := urlItems([]string{"http://h/a", "http://h/a#x", "http://h/b"})
	if len(items) != 2 || len(dups) != 1 || dups[0].Input != "http://h/a#x" {
		t.Errorf("urlItems of a URL given twice: got items %+v, duplicates %+v; want 2 items, 1 duplicate", items, dups)
	}
}

// TestPlanURLs: URLs are planned after the files, under --out, and two
// of one name are numbered.
func TestPlanURLs(t *testing.T) {
	out := t.TempDir()
	p, err := PlanFiles(PlanOptions{Out: out, URLs: []string{"http://h/x", "https://h/x/", "gopher://h"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range p.Items {
		got = append(got, strings.TrimPrefix(it.Output, out+"/")+"|"+it.Fail)
	}
	want := []string{"h_x.pdf|", "h_x_2.pdf|", "|not a web address: want http:// or https://"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("PlanFiles: got %q, want %q", got, want)
	}
}
