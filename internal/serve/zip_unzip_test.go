package serve

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"calq/internal/zipfile/ziptest"
)

// TestZipsUnzip reads calq serve's zips with Debian's unzip: a reply of
// several PDFs (the zip that split results and mailed results are too)
// and a page's "Download all", of several PDFs and of one. Each entry
// keeps its non-ASCII name exactly and shows the time its PDF was made,
// not 1980 (issue 33: names came out as "Caf+�" and dates as 1979-12-31).
func TestZipsUnzip(t *testing.T) {
	png := fileUpload(t, repoTestdata+"/convert/samples/testPNG.png").content
	cafe := upload{"files", "Café & Crème #1.png", png}
	report := upload{"files", "報告 2024.png", png}
	start := time.Now().Truncate(time.Minute)
	check := func(t *testing.T, zipped []byte, want ...string) {
		t.Helper()
		files := ziptest.Unzip(t, zipped)
		var names []string
		for _, f := range files {
			names = append(names, f.Name)
			if f.Listed.Before(start) || f.Listed.After(time.Now()) || !strings.HasPrefix(string(f.Body), "%PDF-") {
				t.Errorf("unzip lists %q at %v holding %.8q, want a PDF made since %v", f.Name, f.Listed, f.Body, start.UTC())
			}
		}
		if !slices.Equal(names, want) {
			t.Errorf("unzip lists %q, want %q", names, want)
		}
	}

	t.Run("a reply of several PDFs", func(t *testing.T) {
		resp := post(t, newTestServer(t, nil).URL+"/forms/libreoffice/convert", []upload{cafe, report}, nil, nil)
		b := body(t, resp)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/zip" {
			t.Fatalf("status %d %s: %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		check(t, b, "Café & Crème #1.png.pdf", "報告 2024.png.pdf") // Gotenberg's names
	})
	ts := pageServer(t, nil)
	c := browserClient(t)
	signIn(t, c, ts.URL, "alice", "alice-secret-pw")
	for _, tt := range []struct {
		name  string
		files []upload
		want  []string
	}{
		{"download all of several", []upload{cafe, report}, []string{"Café & Crème #1.pdf", "報告 2024.pdf"}},
		{"download all of one", []upload{cafe}, []string{"Café & Crème #1.pdf"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := postPage(t, c, ts.URL+"/convert", tt.files, nil)
			resp.Body.Close()
			job := resp.Header.Get("Location")
			if resp.StatusCode != http.StatusSeeOther || job == "" {
				t.Fatalf("upload: %d", resp.StatusCode)
			}
			finalProgress(t, c, ts.URL, job)
			status, zipped := pageGet(t, c, ts.URL+job+"/zip", nil)
			if status != 200 {
				t.Fatalf("GET %s/zip: %d", job, status)
			}
			check(t, []byte(zipped), tt.want...)
		})
	}
}
