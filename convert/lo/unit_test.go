package lo

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"calq/internal/childenv"
)

// Tests of the parts that need no LibreOffice.

func TestSafeExt(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a.docx", ".docx"},
		{"dir.v2/Report.DOCX", ".docx"},
		{"Übersicht – 報告.xlsx", ".xlsx"},
		{"noext", ""},
		{"a.tar.gz", ".gz"},
		{"a.dö", ""},
		{"a.x y", ""},
		{"a.", ""},
		{"a.verylongextension", ""},
	}
	for _, tt := range tests {
		if got := SafeExt(tt.in); got != tt.want {
			t.Errorf("SafeExt(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTarget(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name string
		src  string
		pdfa int
		e    Export
		want string
	}{
		{"plain", "in.docx", 0, Export{}, "pdf"},
		{"pdfa-1", "in.docx", 1, Export{}, `pdf:writer_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"1"}}`},
		{"xlsx", "in.xlsx", 2, Export{}, `pdf:calc_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"2"}}`},
		{"csv", "in.csv", 2, Export{}, `pdf:calc_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"2"}}`},
		{"pptx", "in.pptx", 3, Export{}, `pdf:impress_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"3"}}`},
		{"html", "in.html", 2, Export{}, `pdf:writer_web_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"2"}}`},
		{"png", "in.png", 2, Export{}, `pdf:draw_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"2"}}`},
		{"no extension", "in", 2, Export{}, `pdf:writer_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"2"}}`},
		{"pdf lossless", "in.pdf", 2, Export{}, `pdf:draw_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"2"},` +
			`"UseLosslessCompression":{"type":"boolean","value":"true"},"ReduceImageResolution":{"type":"boolean","value":"false"}}`},
		{"page range", "in.docx", 0, Export{PageRanges: "2-3"}, `pdf:writer_pdf_Export:{"PageRange":{"type":"string","value":"2-3"}}`},
		{"every field", "in.xlsx", 1, Export{PageRanges: "1,3", PDFUA: true, SinglePageSheets: true, ExportFormFields: &no,
			ExportBookmarks: &yes, ExportNotes: true, LosslessImageCompression: true, Quality: 50, MaxImageResolution: 150},
			`pdf:calc_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"1"},` +
				`"PageRange":{"type":"string","value":"1,3"},"PDFUACompliance":{"type":"boolean","value":"true"},` +
				`"SinglePageSheets":{"type":"boolean","value":"true"},"ExportFormFields":{"type":"boolean","value":"false"},` +
				`"ExportBookmarks":{"type":"boolean","value":"true"},"ExportNotes":{"type":"boolean","value":"true"},` +
				`"UseLosslessCompression":{"type":"boolean","value":"true"},"Quality":{"type":"long","value":"50"},` +
				`"ReduceImageResolution":{"type":"boolean","value":"true"},"MaxImageResolution":{"type":"long","value":"150"}}`},
		// The caller's resolution wins over PDF/A's lossless default.
		{"pdf reduced", "in.pdf", 2, Export{MaxImageResolution: 75}, `pdf:draw_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"2"},` +
			`"UseLosslessCompression":{"type":"boolean","value":"true"},"ReduceImageResolution":{"type":"boolean","value":"true"},` +
			`"MaxImageResolution":{"type":"long","value":"75"}}`},
		{"landscape alone", "in.docx", 0, Export{Landscape: true, Password: "x"}, "pdf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := target(tt.src, tt.pdfa, tt.e); got != tt.want {
				t.Errorf("target(%q, %d, %+v) =\n%s\nwant\n%s", tt.src, tt.pdfa, tt.e, got, tt.want)
			}
		})
	}
}

// TestPipePath checks the socket name against ones LibreOffice 7.4 made
// here; the second hash has a byte below 0x10, written as one digit.
func TestPipePath(t *testing.T) {
	tests := []struct{ url, hash string }{
		{"file:///tmp/loexp/p-f/profile", "cbdf75d388b9d7676e4191245696f7af"},
		{"file:///tmp/loexp/p-warm/profile", "6fd01f36f9b6652e9ff72c8b36d3f27"},
	}
	for _, tt := range tests {
		want := fmt.Sprintf("/tmp/OSL_PIPE_%d_SingleOfficeIPC_%s", os.Getuid(), tt.hash)
		if got := pipePath(tt.url); got != want {
			t.Errorf("pipePath(%q) = %s, want %s", tt.url, got, want)
		}
	}
}

func TestProfileURL(t *testing.T) {
	l := layout{"/tmp/state dir/lo-1"}
	if got, want := l.profileURL(), "file:///tmp/state%20dir/lo-1/profile"; got != want {
		t.Errorf("profileURL() = %s, want %s", got, want)
	}
}

func TestRegistryIsXML(t *testing.T) {
	var doc struct {
		Items []struct {
			Path string `xml:"path,attr"`
			Prop struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value"`
			} `xml:"prop"`
		} `xml:"item"`
	}
	if err := xml.Unmarshal(registry(hardening), &doc); err != nil {
		t.Fatalf("registry(hardening) is not XML: %v", err)
	}
	if len(doc.Items) != len(hardening) {
		t.Fatalf("%d items, want %d", len(doc.Items), len(hardening))
	}
	for n, s := range hardening {
		it := doc.Items[n]
		if it.Path != s.path || it.Prop.Name != s.prop || it.Prop.Value != s.value {
			t.Errorf("item %d = %s/%s=%q, want %s/%s=%q", n, it.Path, it.Prop.Name, it.Prop.Value, s.path, s.prop, s.value)
		}
	}
}

func TestInstanceEnv(t *testing.T) {
	env := instanceEnv([]string{"PATH=/bin", "HOME=/root", "LANG=de_DE", "LC_NUMERIC=de_DE", "http_proxy=x",
		"HTTPS_PROXY=y", "XDG_CONFIG_HOME=/c", "DISPLAY=:0", "TMPDIR=/t", "UNKNOWN=1", "SAL_LOG=+WARN",
		"CALQ_OWNER_PASSWORD=secret"}, "/h", "/tmp2")
	got := strings.Join(env, " ")
	// Only the allow-list: no unknown variable, no password.
	want := "PATH=/bin SAL_LOG=+WARN HOME=/h TMPDIR=/tmp2 LANG=C.UTF-8 LC_ALL=C.UTF-8"
	if got != want {
		t.Errorf("instanceEnv = %s, want %s", got, want)
	}
}

// TestHelperEnvHidesSecrets: a variable the run hid (a config's pin_env
// may name any variable, even one the allow-list passes) reaches neither
// LibreOffice nor the UNO helper.
func TestHelperEnvHidesSecrets(t *testing.T) {
	t.Setenv("SAL_GSM1_PIN", "pin-secret")
	t.Setenv("CALQ_DB", "postgres://calq:db-secret@db/calq")
	childenv.Hide("SAL_GSM1_PIN")
	t.Cleanup(func() { childenv.Hide() })
	for name, env := range map[string][]string{
		"instance": instanceEnv(os.Environ(), "/h", "/t"), "helper": pythonEnv(),
	} {
		for _, kv := range env {
			if strings.Contains(kv, "secret") {
				t.Errorf("the %s's environment holds %s", name, kv)
			}
		}
		if !slices.Contains(env, "LANG=C.UTF-8") {
			t.Errorf("the %s's environment = %q, want LANG=C.UTF-8", name, env)
		}
	}
}

func TestParseStat(t *testing.T) {
	stat := "1234 (soffice.bin (x) y) S 1 1200 1200 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 5 0 100 1000000 2500 18446744073709551615"
	pgrp, rss, ok := parseStat(stat)
	if !ok || pgrp != 1200 || rss != 2500 {
		t.Errorf("parseStat = %d, %d, %v; want 1200, 2500, true", pgrp, rss, ok)
	}
	if _, _, ok := parseStat("garbage"); ok {
		t.Error("parseStat(garbage) ok, want not ok")
	}
}

func TestTailLog(t *testing.T) {
	l := newTailLog(8)
	l.Write([]byte("abc"))
	m := l.mark()
	l.Write([]byte("defghij"))
	if got := l.since(m); got != "defghij" {
		t.Errorf("since = %q, want defghij", got)
	}
	l.Write([]byte("klmnop"))
	if got := l.since(m); got != "ijklmnop" {
		t.Errorf("since after overflow = %q, want the last 8 bytes ijklmnop", got)
	}
	if got := l.String(); got != "ijklmnop" {
		t.Errorf("String = %q", got)
	}
}

func TestNeutralizeRTF(t *testing.T) {
	const res = `{\fldrslt cached}`
	tests := []struct {
		name, in string
		changed  bool
	}{
		{"plain", `{\rtf1 {\field{\*\fldinst INCLUDEPICTURE "/x.png" \\d}` + res + `}}`, true},
		{"no star, spaces", `{\rtf1 {\field{\fldinst    INCLUDEPICTURE "/x.png"}` + res + `}}`, true},
		{"lower case", `{\rtf1 {\field{\*\fldinst includepicture "/x.png"}` + res + `}}`, true},
		{"split in groups", `{\rtf1 {\field{\*\fldinst {INCLUDE}{PICTURE "/x.png"}}` + res + `}}`, true},
		{"hex escape", `{\rtf1 {\field{\*\fldinst \'49NCLUDEPICTURE "/x.png"}` + res + `}}`, true},
		{"unicode escape", `{\rtf1 {\field{\*\fldinst \u73?NCLUDETEXT "/x.txt"}` + res + `}}`, true},
		{"no space before quote", `{\rtf1 {\field{\*\fldinst INCLUDEPICTURE"/x.png"}` + res + `}}`, true},
		{"IMPORT", `{\rtf1 {\field{\*\fldinst IMPORT "/x.png"}` + res + `}}`, true},
		{"nested in IF", `{\rtf1 {\field{\*\fldinst IF 1 = 1 "{\field{\*\fldinst INCLUDEPICTURE "/x.png"}}"}` + res + `}}`, true},
		{"HYPERLINK kept", `{\rtf1 {\field{\*\fldinst HYPERLINK "http://example.com/"}` + res + `}}`, false},
		{"PAGE kept", `{\rtf1 {\field{\*\fldinst PAGE}` + res + `}}`, false},
		{"text only", `{\rtf1 INCLUDEPICTURE as text\par}`, false},
		{"bin data with braces", `{\rtf1 {\pict\bin4 }{{}{\field{\*\fldinst INCLUDEPICTURE "/x"}` + res + `}}`, true},
		{"escaped braces", `{\rtf1 {\field{\*\fldinst INCLUDEPICTURE "/a\}b.png"}` + res + `}}`, true},
		{"left open", `{\rtf1 }}}{\field{\*\fldinst INCLUDEPICTURE "/x"`, true},
		{"unicode with hex fallback", `{\rtf1 {\field{\*\fldinst \u73\'3fNCLUDEPICTURE "/x"}` + res + `}}`, true},
	}
	for _, tt := range tests {
		out, changed := neutralizeRTF([]byte(tt.in))
		if changed != tt.changed {
			t.Errorf("%s: changed = %v, want %v (%s)", tt.name, changed, tt.changed, out)
			continue
		}
		s := string(out)
		if !changed && s != tt.in {
			t.Errorf("%s: unchanged input rewritten: %s", tt.name, s)
		}
		if changed && (strings.Contains(strings.ToUpper(s), "NCLUDE") || strings.Contains(s, "IMPORT") ||
			!strings.Contains(s, res) && tt.name != "left open") {
			t.Errorf("%s: got %s, want the instruction gone and the result kept", tt.name, s)
		}
	}
}

func FuzzNeutralizeRTF(f *testing.F) {
	f.Add([]byte(`{\rtf1 {\field{\*\fldinst INCLUDEPICTURE "/x.png" \\d}{\fldrslt y}}}`))
	f.Add([]byte(`{\rtf1 {\pict\bin99 }}`))
	f.Add([]byte(`{\rtf1 \'4`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, changed := neutralizeRTF(in)
		if !changed && string(out) != string(in) {
			t.Fatalf("unchanged but rewritten")
		}
		if changed {
			// Neutralising is idempotent: nothing including is left.
			if again, changed := neutralizeRTF(out); changed {
				t.Fatalf("second pass changed %q to %q", out, again)
			}
		}
	})
}

func TestIsRTF(t *testing.T) {
	for in, want := range map[string]bool{`{\rtf1`: true, "\xef\xbb\xbf {\\rtf1": true, "PK\x03\x04": false, "": false, `{\rt`: false} {
		if got := isRTF([]byte(in)); got != want {
			t.Errorf("isRTF(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestConvertError(t *testing.T) {
	err := error(&ConvertError{Input: "a.docx", Reason: ReasonTimeout, Err: context.DeadlineExceeded})
	if got, want := err.Error(), "convert a.docx: timeout: context deadline exceeded"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("errors.Is(err, DeadlineExceeded) = false")
	}
	err = &ConvertError{Input: "b.docx", Reason: ReasonLoadFailed, Detail: "Error: source file could not be loaded"}
	if got, want := err.Error(), "convert b.docx: load failed (Error: source file could not be loaded)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestFindMissing(t *testing.T) {
	_, _, err := Find(filepath.Join(t.TempDir(), "no-soffice"))
	if !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("Find(missing) = %v, want ErrNotInstalled", err)
	}
	var h interface{ Hint() string }
	if !errors.As(err, &h) || !strings.Contains(h.Hint(), "apt-get install libreoffice-writer-nogui") {
		t.Errorf("Find(missing): no install hint in %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := New(t.Context(), Options{}); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("New without soffice in PATH = %v, want ErrNotInstalled", err)
	}
}

// TestSlots: two pools on one state directory take different slots,
// since two instances must never share a profile.
func TestSlots(t *testing.T) {
	dir := t.TempDir()
	a := &Pool{opts: Options{Instances: 2, StateDir: dir}}
	b := &Pool{opts: Options{Instances: 1, StateDir: dir}}
	for _, p := range []*Pool{a, b} {
		if err := p.claim(); err != nil {
			t.Fatal(err)
		}
	}
	got := []string{a.insts[0].l.dir, a.insts[1].l.dir, b.insts[0].l.dir}
	want := []string{filepath.Join(dir, "lo-1"), filepath.Join(dir, "lo-2"), filepath.Join(dir, "lo-3")}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("slots %v, want %v", got, want)
	}
	if b.insts[0].Name() != "lo-1" {
		t.Errorf("b's instance is named %s, want lo-1", b.insts[0].Name())
	}
	a.insts[0].lock.Close() // a's first slot is free again
	c := &Pool{opts: Options{Instances: 1, StateDir: dir}}
	if err := c.claim(); err != nil {
		t.Fatal(err)
	}
	if got := c.insts[0].l.dir; got != want[0] {
		t.Errorf("after a slot was released, the next pool took %s, want %s", got, want[0])
	}
	for _, i := range []*Instance{a.insts[1], b.insts[0], c.insts[0]} {
		i.lock.Close()
	}
}

func TestDefaultInstances(t *testing.T) {
	if n := DefaultInstances(); n < 1 {
		t.Errorf("DefaultInstances() = %d, want at least 1", n)
	}
}

func TestImportFilter(t *testing.T) {
	for src, want := range map[string]string{"in.oth": "writer8", "IN.OTH": "writer8", "in.odt": "", "in.html": "", "in": ""} {
		if got := importFilter(src); got != want {
			t.Errorf("importFilter(%q) = %q, want %q", src, got, want)
		}
	}
}

func TestBeforeStack(t *testing.T) {
	crash := "Warning: failed to launch javaldx - java may not function correctly\n" +
		"No fonts could be found on the system.\nUnspecified Application Error\n\n\n" +
		"Fatal exception: Signal 6\nStack:\n" +
		"/usr/lib/libreoffice/program/libuno_sal.so.3(+0x37722)[0x7fe566136722]\n" +
		"/usr/lib/libreoffice/program/soffice.bin(+0x10b1)[0x557c955a40b1]\n"
	tests := []struct {
		name, log string
		n         int
		want      string
	}{
		{"crash", crash, 3, "No fonts could be found on the system.\nUnspecified Application Error\nFatal exception: Signal 6"},
		{"no stack", "a\nb\n\nc\n", 2, "b\nc"},
		{"empty", "", 5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := beforeStack(tt.log, tt.n); got != tt.want {
				t.Errorf("beforeStack(%q, %d) = %q, want %q", tt.log, tt.n, got, tt.want)
			}
		})
	}
}
