package pdf

import (
	"image"
	"image/color"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// testFile returns the path of a test input: testdata/convert/<name> in
// the repository, else the shared corpus while testdata is being filled.
func testFile(t testing.TB, name string) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	candidates := []string{
		filepath.Join(filepath.Dir(here), "..", "..", "testdata", "convert", name),
		filepath.Join("/work/shared/corpus", name),
	}
	for _, p := range candidates {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("test input %s not found in %v", name, candidates)
	return ""
}

// inspect reads path back and fails the test on error.
func inspect(t testing.TB, path, password string) Info {
	t.Helper()
	info, err := Inspect(path, password)
	if err != nil {
		t.Fatalf("Inspect(%s): %v", filepath.Base(path), err)
	}
	return info
}

// openFile opens path for the test, which closes it at its end.
func openFile(t testing.TB, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// mustNotExist fails when path exists.
func mustNotExist(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists after a failure (stat: %v)", path, err)
	}
}

// onlyFiles fails unless dir holds exactly the named entries: no
// temporary file or directory may stay behind.
func onlyFiles(t testing.TB, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("unexpected %s left in %s", e.Name(), dir)
		}
	}
}

// testImage is a small picture whose top-left pixel is red and the rest
// blue, so orientation can be checked.
func testImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{0, 0, 255, 255})
		}
	}
	img.Set(0, 0, color.NRGBA{255, 0, 0, 255})
	return img
}
