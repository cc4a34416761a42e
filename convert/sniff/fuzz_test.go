package sniff

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDetect runs the content checks of every format on arbitrary bytes. They
// must not panic, must fail only with a reason, and must accept images only
// with their signature. Seeds: the start of every corpus file and a few whole
// small ones.
func FuzzDetect(f *testing.F) {
	exts := Supported()
	paths, _ := filepath.Glob(filepath.Join(testdata, "*.*"))
	more, _ := filepath.Glob(filepath.Join(testdata, "protected", "*.*"))
	for i, p := range append(paths, more...) {
		b, err := os.ReadFile(p)
		if err != nil || filepath.Ext(p) == ".md" {
			continue
		}
		if len(b) > 20000 {
			b = b[:4096]
		}
		f.Add(uint8(i), b)
	}
	f.Fuzz(func(t *testing.T, pick uint8, data []byte) {
		ext := exts[int(pick)%len(exts)]
		fm := formats[ext]
		err := detect(fm, bytes.NewReader(data), int64(len(data)))
		if err == nil {
			if fm.kind == Image && imageType(data) != fm.magic {
				t.Fatalf("%s accepted without a %s signature", ext, fm.magic)
			}
			return
		}
		var de *detectError
		if !errors.As(err, &de) || de.reason == "" {
			t.Fatalf("%s: error %v (%T) is not a reason", ext, err, err)
		}
		if len(data) == 0 && de.sentinel != ErrEmpty {
			t.Fatalf("%s: empty input gave %v", ext, err)
		}
	})
}
