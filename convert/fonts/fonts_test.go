package fonts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"calq/internal/tooltest"
)

func TestCharset(t *testing.T) {
	tests := []struct{ name, sample, want string }{
		{"ASCII", "Ab", "41 62"},
		{"BMP", "日本", "65e5 672c"},
		{"beyond the BMP", "😀", "1f600"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := charset(tt.sample); got != tt.want {
				t.Errorf("charset(%q) = %q, want %q", tt.sample, got, tt.want)
			}
		})
	}
}

// TestCover asks the real fontconfig, told by FONTCONFIG_FILE to see one
// font (DejaVu Sans), which scripts it covers.
func TestCover(t *testing.T) {
	tooltest.Require(t, "fc-list")
	font := dejaVu(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "fonts.conf")
	body := `<?xml version="1.0"?><fontconfig><dir>` + filepath.Dir(font) + `</dir><cachedir>` + dir + `</cachedir></fontconfig>`
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "FONTCONFIG_FILE=" + conf}
	cov, err := Cover(t.Context(), env, Scripts)
	if err != nil {
		t.Fatal(err)
	}
	if len(cov) != len(Scripts) {
		t.Fatalf("Cover gave %d scripts, want %d", len(cov), len(Scripts))
	}
	want := map[string]bool{"Latin": true, "Greek": true, "Cyrillic": true, "Japanese": false, "Korean": false, "Thai": false}
	for _, c := range cov {
		w, ok := want[c.Name]
		if !ok {
			continue
		}
		if c.Covered() != w {
			t.Errorf("%s covered by %v with DejaVu alone, want covered %v", c.Name, c.Fonts, w)
		}
		if w && !strings.HasPrefix(strings.Join(c.Fonts, ","), "DejaVu") {
			t.Errorf("%s covered by %v, want only DejaVu fonts", c.Name, c.Fonts)
		}
	}
}

// TestCoverNoFontconfig: without fc-list the error says which package
// brings it.
func TestCoverNoFontconfig(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Cover(t.Context(), nil, Scripts[:1])
	if err == nil || !strings.Contains(err.Error(), "fontconfig package") {
		t.Errorf("Cover without fc-list = %v, want an error naming the fontconfig package", err)
	}
}

// dejaVu is the path of DejaVu Sans (fonts-dejavu-core, which .ci/tools
// installs).
func dejaVu(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("fc-match", "--format", "%{file}", "DejaVu Sans").Output()
	if err != nil || !strings.Contains(string(out), "DejaVuSans") {
		tooltest.Unavailable(t, "DejaVu Sans not installed (fc-match: %q, %v): apt-get install fonts-dejavu-core", out, err)
	}
	return string(out)
}
