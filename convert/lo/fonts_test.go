package lo

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"calq/convert/fonts"
	"calq/convert/internal/gendoc"
	"calq/internal/tooltest"
)

// TestScriptsDrawn converts a Word document in Japanese, Chinese and
// Korean and checks that each character is drawn with a glyph of its
// own. Without a font for a script LibreOffice draws every character of
// it with one empty glyph and keeps the text only in ActualText, so the
// text extracts fine while the page shows nothing: the fonts' ToUnicode
// maps are what tell. Needs a font for each script (fonts-noto-cjk): it
// skips without one, and fails under CALQ_REQUIRE_TOOLS=1.
func TestScriptsDrawn(t *testing.T) {
	want := cjkScripts(t)
	inst := sharedPool.get(t).Instances()[0]
	var title []string
	for _, s := range want {
		title = append(title, s.Sample)
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "cjk.docx"), filepath.Join(dir, "cjk.pdf")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := gendoc.DOCX(f, strings.Join(title, " "), 1); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := inst.Convert(t.Context(), in, out, ConvertOptions{}); err != nil {
		t.Fatalf("Convert = %v", err)
	}
	drawn := glyphRunes(t, checkPDF(t, out, 1))
	for _, s := range want {
		var missing []rune
		for _, r := range s.Sample {
			if !drawn[r] {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s: %q have no glyph of their own in the PDF (drawn as empty boxes), want every one of %q",
				s.Name, string(missing), s.Sample)
		}
	}
}

// cjkScripts are fonts.Scripts' Japanese, Chinese and Korean, once
// fontconfig says a font covers each.
func cjkScripts(t *testing.T) []fonts.Script {
	t.Helper()
	var cjk []fonts.Script
	for _, s := range fonts.Scripts {
		if s.Name == "Japanese" || s.Name == "Korean" || strings.HasPrefix(s.Name, "Chinese") {
			cjk = append(cjk, s)
		}
	}
	tooltest.Require(t, "fc-list")
	cov, err := fonts.Cover(t.Context(), os.Environ(), cjk)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cov {
		if !c.Covered() {
			tooltest.Unavailable(t, "no font covers %s: apt-get install %s", c.Name, c.Package)
		}
	}
	if len(cjk) != 4 {
		t.Fatalf("fonts.Scripts has %d CJK scripts, want 4", len(cjk))
	}
	return cjk
}

var (
	streamRE = regexp.MustCompile(`(?s)stream\r?\n(.*?)endstream`)
	bfcharRE = regexp.MustCompile(`(?s)beginbfchar(.*?)endbfchar`)
	// A range's destination is either one string, incremented along the
	// range, or an array of strings; both come out as hex strings here.
	bfrangeRE = regexp.MustCompile(`(?s)beginbfrange(.*?)endbfrange`)
	hexRE     = regexp.MustCompile(`<([0-9A-Fa-f]*)>`)
)

// glyphRunes returns the characters the ToUnicode maps of the PDF's
// fonts give a glyph of its own: each destination of a bfchar, and of
// a bfrange as LibreOffice writes them (an array of destinations, or
// one incremented along the range). It reads LibreOffice's output, whose
// streams are Flate-compressed objects of their own.
func glyphRunes(t *testing.T, pdf []byte) map[rune]bool {
	t.Helper()
	runes := map[rune]bool{}
	for _, m := range streamRE.FindAllSubmatch(pdf, -1) {
		zr, err := zlib.NewReader(bytes.NewReader(m[1]))
		if err != nil {
			continue // not Flate: an image, say
		}
		cmap, _ := io.ReadAll(zr)
		for _, sec := range bfcharRE.FindAllSubmatch(cmap, -1) {
			h := hexRE.FindAllSubmatch(sec[1], -1)
			for i := 1; i < len(h); i += 2 {
				addUTF16(t, runes, h[i][1], 0)
			}
		}
		for _, sec := range bfrangeRE.FindAllSubmatch(cmap, -1) {
			for _, line := range strings.Split(string(sec[1]), "\n") {
				h := hexRE.FindAllStringSubmatch(line, -1)
				if len(h) < 3 {
					continue
				}
				lo, err1 := strconv.ParseUint(h[0][1], 16, 16)
				hi, err2 := strconv.ParseUint(h[1][1], 16, 16)
				if err1 != nil || err2 != nil || hi < lo {
					t.Fatalf("ToUnicode range %q: want <lo> <hi> with lo <= hi", line)
				}
				if strings.Contains(line, "[") {
					for _, d := range h[2:] {
						addUTF16(t, runes, []byte(d[1]), 0)
					}
					continue
				}
				for k := range hi - lo + 1 {
					addUTF16(t, runes, []byte(h[2][1]), int(k))
				}
			}
		}
	}
	return runes
}

// addUTF16 adds the characters of hex UTF-16BE string h, its last code
// unit plus inc, to runes.
func addUTF16(t *testing.T, runes map[rune]bool, h []byte, inc int) {
	b, err := hex.DecodeString(string(h))
	if err != nil || len(b)%2 != 0 {
		t.Fatalf("ToUnicode destination <%s>: not UTF-16BE hex", h)
	}
	units := make([]uint16, len(b)/2)
	for i := range units {
		units[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	units[len(units)-1] += uint16(inc)
	for _, r := range utf16.Decode(units) {
		runes[r] = true
	}
}
