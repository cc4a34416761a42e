package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"calq/internal/serve/jobs"
)

// TestResultNames: a job's result is named after what people know of
// it: one PDF after its file, a merged one after the profile's title
// (Gotenberg-Output-Filename first, as Gotenberg's clients ask), a zip
// for API clients after the job, as Gotenberg names it after a UUID; in
// a zip, a converted document keeps its extension, as in Gotenberg's.
func TestResultNames(t *testing.T) {
	three := []jobs.File{{Name: "Zahlen 2025.xlsx", Stored: "0001.xlsx"}, {Name: "b.docx", Stored: "0002.docx"},
		{Name: "c.odt", Stored: "0003.odt"}}
	tests := []struct {
		name     string
		route    string
		files    []jobs.File
		filename string // Gotenberg-Output-Filename
		task     Task
		pdfs     []string // made in out/
		want     string
		inside   []string
	}{
		{"one file", routeConvert, three[:1], "", Task{}, []string{"0001.pdf"}, "Zahlen 2025.pdf", nil},
		{"merged, the profile's title", routeConvert, three, "", Task{Merge: true, Title: "Board pack"},
			[]string{"merged.pdf"}, "Board pack.pdf", nil},
		{"merge route, the profile's title", routeMerge, three, "", Task{Title: "Board pack"},
			[]string{"post-0000.pdf"}, "Board pack.pdf", nil},
		{"merged, the header first", routeConvert, three, "pack", Task{Merge: true, Title: "Board pack"},
			[]string{"merged.pdf"}, "pack.pdf", nil},
		{"merged, a title that is no file name", routeConvert, three, "", Task{Merge: true, Title: " Q1/Q2:\tbudget\\plan. "},
			[]string{"merged.pdf"}, "Q1-Q2: budget-plan.pdf", nil},
		{"merged, a title of dots", routeConvert, three, "", Task{Merge: true, Title: ".."},
			[]string{"merged.pdf"}, "Zahlen 2025.pdf", nil},
		{"merged, no title", routeConvert, three, "", Task{Merge: true}, []string{"merged.pdf"}, "Zahlen 2025.pdf", nil},
		{"one file, a title", routeConvert, three[:1], "", Task{Title: "Board pack"}, []string{"0001.pdf"}, "Zahlen 2025.pdf", nil},
		{"several, for an API client", routeConvert, three, "", Task{Title: "Board pack"},
			[]string{"0001.pdf", "0002.pdf", "0003.pdf"}, "JOBID.zip", []string{"Zahlen 2025.xlsx.pdf", "b.docx.pdf", "c.odt.pdf"}},
		{"several with a header", routeConvert, three, "pack", Task{},
			[]string{"0001.pdf", "0002.pdf"}, "pack.zip", []string{"Zahlen 2025.xlsx.pdf", "b.docx.pdf"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for _, p := range tt.pdfs {
				path := filepath.Join(dir, p)
				if err := os.WriteFile(path, []byte("%PDF-1.7\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, path)
			}
			j := &jobs.Job{ID: "JOBID", Route: tt.route, Request: jobs.Request{Files: tt.files, Filename: tt.filename}}
			pdfs := converted(j, paths, true, false)
			if tt.route == routeMerge || tt.task.Merge {
				pdfs = []namedPDF{{path: paths[0], name: mergedName(j, tt.task)}}
			}
			res, err := (&Server{}).pack(j, pdfs, dir)
			if err != nil {
				t.Fatal(err)
			}
			if res.Name != tt.want || strings.Join(res.Files, ",") != strings.Join(tt.inside, ",") {
				t.Errorf("result %q holding %q, want %q holding %q", res.Name, res.Files, tt.want, tt.inside)
			}
		})
	}
}

// TestPeopleNames: what reaches people (a page's download of all, a
// mail's attachment and subject) is named after the job's files, the
// profile's title and the day, never after the job's id.
func TestPeopleNames(t *testing.T) {
	sent := time.Date(2025, 5, 1, 12, 0, 0, 0, time.Local)
	opts := func(t Task) json.RawMessage { b, _ := json.Marshal(t); return b }
	three := []jobs.File{{Name: "Zahlen 2025.xlsx"}, {Name: "b.docx"}, {Name: "c.odt"}}
	tests := []struct {
		name string
		j    jobs.Job
		want string
	}{
		{"one PDF", jobs.Job{Request: jobs.Request{Files: three[:1]}, Result: &jobs.Result{ContentType: contentTypePDF, Name: "Zahlen 2025.pdf"}},
			"Zahlen 2025.pdf"},
		{"a zip, the header", jobs.Job{Request: jobs.Request{Files: three, Filename: "pack"}, Result: &jobs.Result{ContentType: contentTypeZip, Name: "pack.zip"}},
			"pack.zip"},
		{"a zip, the profile's title", jobs.Job{Request: jobs.Request{Files: three, Options: opts(Task{Title: "Board pack"})},
			Result: &jobs.Result{ContentType: contentTypeZip, Name: "0123456789abcdef0123456789abcdef.zip"}},
			"Board pack 2025-05-01.zip"},
		{"a zip of several files", jobs.Job{Request: jobs.Request{Files: three},
			Result: &jobs.Result{ContentType: contentTypeZip, Name: "0123456789abcdef0123456789abcdef.zip"}},
			"Zahlen 2025 and 2 more 2025-05-01.zip"},
		{"a zip of one file's parts", jobs.Job{Request: jobs.Request{Files: three[:1]},
			Result: &jobs.Result{ContentType: contentTypeZip, Name: "0123456789abcdef0123456789abcdef.zip"}},
			"Zahlen 2025 2025-05-01.zip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.j.ID, tt.j.Created = "0123456789abcdef0123456789abcdef", sent
			if got := peopleName(&tt.j); got != tt.want {
				t.Errorf("peopleName() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPageNames: through the pages, a merged result is named after the
// profile's title, and the download of all and the mail of a job of
// several PDFs after the title or the first file and the day; the same
// job through the API keeps Gotenberg's naming.
func TestPageNames(t *testing.T) {
	m := &recordingMailer{}
	ts := pageServer(t, func(o *Options) { o.Mail = m })
	alice := browserClient(t)
	signIn(t, alice, ts.URL, "alice", "alice-secret-pw")
	if status, page := pagePost(t, alice, ts.URL+"/profiles", url.Values{"action": {"save"}, "name": {"board"}, "title": {"Board pack"}}); status != 200 {
		t.Fatalf("save a profile: %d\n%s", status, page)
	}
	files := []upload{{"files", "Zahlen 2025.txt", []byte("one\n")}, {"files", "b.txt", []byte("two\n")}, {"files", "c.txt", []byte("three\n")}}
	id := regexp.MustCompile(`[0-9a-f]{32}`)
	tests := []struct {
		name   string
		fields map[string]string
		file   string // the first PDF's download
		all    string // the download of all
		mail   string // the mail's attachment
	}{
		{"merged with a title", map[string]string{"profile": "board", "merge": "true"}, "Board pack.pdf", "Board pack.zip", "Board pack.pdf"},
		{"several with a title", map[string]string{"profile": "board"}, "Zahlen 2025.pdf", "Board pack DAY.zip", "Board pack DAY.zip"},
		{"several", nil, "Zahlen 2025.pdf", "Zahlen 2025 and 2 more DAY.zip", "Zahlen 2025 and 2 more DAY.zip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := postPage(t, alice, ts.URL+"/convert", files, tt.fields)
			resp.Body.Close()
			job := resp.Header.Get("Location")
			if p := finalProgress(t, alice, ts.URL, job); p.State != jobs.Done {
				t.Fatalf("job: %+v", p)
			}
			j, err := ts.Jobs.Get(context.Background(), "alice", strings.TrimPrefix(job, "/job/"))
			if err != nil {
				t.Fatal(err)
			}
			day := j.Created.Local().Format("2006-01-02")
			all, mail := strings.ReplaceAll(tt.all, "DAY", day), strings.ReplaceAll(tt.mail, "DAY", day)
			for path, want := range map[string]string{job + "/file/0?download=1": tt.file, job + "/zip": all} {
				resp, err := alice.Get(ts.URL + path)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if got := attachmentName(t, resp.Header.Get("Content-Disposition")); got != want {
					t.Errorf("GET %s: named %q, want %q", path, got, want)
				}
			}
			if status, _ := pagePost(t, alice, ts.URL+job+"/mail", url.Values{"to": {"boss@example.org"}}); status != http.StatusSeeOther {
				t.Fatalf("mail: %d", status)
			}
			_, sends := m.recorded()
			if last := sends[len(sends)-1]; !strings.HasSuffix(last, ": "+mail) || id.MatchString(last) {
				t.Errorf("mailed %q, want the attachment named %q", last, mail)
			}
			if _, page := pageGet(t, alice, ts.URL+job, nil); strings.Contains(pageTitle(page), j.ID[:8]) ||
				!strings.HasPrefix(pageTitle(page), "Zahlen 2025.txt and 2 more") {
				t.Errorf("the job's page title is %q, want its files, not its id", pageTitle(page))
			}
		})
	}
	// The API's reply of several PDFs stays named as Gotenberg names it.
	key, err := ts.Users.NewKey(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	resp := post(t, ts.URL+"/forms/libreoffice/convert", files, nil, bearer(key))
	body(t, resp)
	if got := attachmentName(t, resp.Header.Get("Content-Disposition")); resp.StatusCode != 200 || !regexp.MustCompile(`^[0-9a-f]{32}\.zip$`).MatchString(got) {
		t.Errorf("the API's zip: %d named %q, want a 32-character id as Gotenberg's UUID", resp.StatusCode, got)
	}
}

// attachmentName is the file name of a Content-Disposition header, its
// UTF-8 form when it has one.
func attachmentName(t *testing.T, header string) string {
	t.Helper()
	if _, enc, ok := strings.Cut(header, "filename*=UTF-8''"); ok {
		name, err := url.PathUnescape(enc)
		if err != nil {
			t.Fatalf("Content-Disposition %q: %v", header, err)
		}
		return name
	}
	m := regexp.MustCompile(`filename="([^"]*)"`).FindStringSubmatch(header)
	if m == nil {
		t.Fatalf("Content-Disposition %q names no file", header)
	}
	return m[1]
}

// pageTitle is the text of a page's <title>.
func pageTitle(page string) string {
	m := regexp.MustCompile(`<title>([^<]*)</title>`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return m[1]
}
