package pdf

// beginMarked opens a marked-content sequence; one with an ActualText
// property (LibreOffice writes them around glyphs whose font maps them to
// nothing useful) contributes that text instead of its glyphs.
func (t *textRun) beginMarked(ops []token) {
	actual, ok := "", false
	if len(ops) == 2 && ops[1].kind == tokDict {
		actual, ok = dictText(ops[1], "ActualText")
	}
	if ok {
		t.write(actual)
		t.hidden++
	}
	if len(t.marked) < maxNesting {
		t.marked = append(t.marked, ok)
	}
}

func (t *textRun) endMarked() {
	if n := len(t.marked); n > 0 {
		if t.marked[n-1] {
			t.hidden--
		}
		t.marked = t.marked[:n-1]
	}
}

// dictText returns the text string under key in an inline dictionary.
func dictText(d token, key string) (string, bool) {
	for i := 0; i+1 < len(d.arr); i += 2 {
		if k, v := d.arr[i], d.arr[i+1]; k.kind == tokName && string(k.b) == key && v.kind == tokStr {
			return pdfText(v.b), true
		}
	}
	return "", false
}

// pdfText decodes a PDF text string: UTF-16BE or UTF-8 with a byte order
// mark, else PDFDocEncoding, which WinAnsi approximates.
func pdfText(b []byte) string {
	switch {
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		return utf16Text(b[2:])
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		return string(b[3:])
	}
	return (&fontDecoder{}).decode(b)
}
