package form

import (
	"bytes"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// FuzzRead feeds Read random bodies under a fixed boundary: it must not
// panic, must answer with an *Error or a form, and must leave nothing but
// the form's own files, all inside dir.
func FuzzRead(f *testing.F) {
	b, _ := body(f, part{name: "files", file: "a.docx", body: "doc"}, part{name: "quality", body: "90"})
	f.Add(b.Bytes())
	f.Add([]byte("--X\r\nContent-Disposition: form-data; name=\"f\"; filename=\"../../x\"\r\n\r\nabc\r\n--X--\r\n"))
	f.Add([]byte("--X\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--X\r\n\r\n--X--"))
	f.Add([]byte("--X\r\nContent-Disposition: form-data; filename*=UTF-8''%2E%2E%2Fy\r\n\r\n\r\n--X--\r\n"))
	parent := f.TempDir()
	dir := filepath.Join(parent, "req")
	if err := os.Mkdir(dir, 0o700); err != nil {
		f.Fatal(err)
	}
	lim := Limits{MaxBody: 8 << 10, MaxFile: 1 << 10, MaxFiles: 4, MaxFields: 8, MaxFieldBytes: 256}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Bodies that hold the other boundary spelling too.
		data = bytes.ReplaceAll(data, []byte("--x"), []byte("--X"))
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(data))
		r.Header.Set("Content-Type", "multipart/form-data; boundary=X")
		form, err := Read(r, dir, lim)
		var fe *Error
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("error %v (%T), want *Error", err, err)
		}
		var want []string
		if form != nil {
			for _, file := range form.Files {
				if filepath.Dir(file.Path) != dir {
					t.Fatalf("file %s outside %s", file.Path, dir)
				}
				if st, err := os.Stat(file.Path); err != nil || st.Size() != file.Size || file.Size > lim.MaxFile {
					t.Fatalf("file %s: %v, want %d bytes within the limit", file.Path, err, file.Size)
				}
				if file.Name == "" {
					t.Fatal("a file with an empty name")
				}
				want = append(want, file.Path)
			}
			_ = checkFields(form)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != len(want) {
			t.Fatalf("dir holds %d entries, want the form's %d", len(entries), len(want))
		}
		if form != nil {
			if err := form.Remove(); err != nil {
				t.Fatal(err)
			}
		}
		if top, _ := os.ReadDir(parent); len(top) != 1 {
			t.Fatalf("parent holds %d entries, want only req", len(top))
		}
	})
}

// checkFields runs the field readers over a fuzzed form; any error
// must be a 400 *Error.
func checkFields(f *Form) error {
	_, err := LibreOffice(f)
	if err != nil && err.(*Error).Status != http.StatusBadRequest {
		panic(err)
	}
	return err
}

// chromiumFields are the fields FuzzChromium sets.
var chromiumFields = []string{"skipNetworkIdleEvent", "failOnHttpStatusCodes", "failOnResourceHttpStatusCodes",
	"ignoreResourceHttpStatusDomains", "waitDelay", "cookies", "userAgent", "extraHttpHeaders", "emulatedMediaType",
	"emulatedMediaFeatures", "omitBackground", "printBackground", "scale", "paperWidth", "paperHeight", "marginTop",
	"marginLeft", "nativePageRanges", "width", "height", "format", "quality", "deviceScaleFactor", "url", "pdfa",
	"splitMode", "splitSpan", "metadata"}

// FuzzChromium reads fuzzed values of Chromium's fields on every route:
// it must not panic, must refuse with a 400 *Error, or give options
// within calq's bounds.
func FuzzChromium(f *testing.F) {
	f.Add(uint8(0), uint8(5), `{"foo":"bar;scope=*."}`, "1in")
	f.Add(uint8(1), uint8(7), `{"a":"b; scope=^https://x\\.y/"}`, "210mm")
	f.Add(uint8(2), uint8(5), `[{"name":"a","value":"b","domain":"c","sameSite":"LAX"}]`, "1-3, 5-")
	f.Add(uint8(3), uint8(18), "1e308px", "NaN")
	f.Add(uint8(4), uint8(23), "file:///etc/passwd", "http://[::1")
	f.Fuzz(func(t *testing.T, route, field uint8, v1, v2 string) {
		name := chromiumFields[int(field)%len(chromiumFields)]
		next := chromiumFields[(int(field)+1)%len(chromiumFields)]
		form := withFiles([]File{page}, name, v1, next, v2)
		o, err := Chromium(ChromiumRoutes[int(route)%len(ChromiumRoutes)], form)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Status != http.StatusBadRequest {
				t.Fatalf("error %v (%T), want a 400 *Error", err, err)
			}
			return
		}
		checkChromium(t, o)
	})
}

// checkChromium fails t when o is not within calq's bounds.
func checkChromium(t *testing.T, o ChromiumOptions) {
	p, s, l := o.PDF, o.Shot, o.Load
	for _, n := range []float64{p.Scale, p.PaperWidth, p.PaperHeight, p.MarginTop, p.MarginBottom, p.MarginLeft, p.MarginRight, s.DeviceScaleFactor} {
		if math.IsNaN(n) || math.IsInf(n, 0) || n < 0 {
			t.Fatalf("a length or scale of %v in %+v", n, o)
		}
	}
	if p.PaperWidth > maxPaper || p.PaperHeight > maxPaper || s.Width > maxShotSide || s.Height > maxShotSide || s.Quality > 100 || s.Quality < 0 {
		t.Fatalf("out of calq's bounds: %+v", o)
	}
	if l.WaitDelay < 0 || l.WaitDelay > maxWaitDelay || len(l.Cookies) > maxCookies || len(l.ExtraHTTPHeaders) > maxHeaders {
		t.Fatalf("load out of calq's bounds: %+v", l)
	}
	for _, h := range l.ExtraHTTPHeaders {
		if !isToken(h.Name) || strings.ContainsAny(h.Value, "\r\n") {
			t.Fatalf("header %q", h)
		}
		if _, err := regexp.Compile(h.Scope); err != nil {
			t.Fatalf("scope %q: %v", h.Scope, err)
		}
	}
	for _, c := range l.Cookies {
		if c.Name == "" || c.Domain == "" || !slices.Contains([]string{"", "Strict", "Lax", "None"}, c.SameSite) {
			t.Fatalf("cookie %+v", c)
		}
	}
	if o.URL != "" && !strings.HasPrefix(strings.ToLower(o.URL), "http") {
		t.Fatalf("url %q", o.URL)
	}
}
