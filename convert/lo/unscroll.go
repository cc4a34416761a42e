package lo

import (
	"archive/zip"
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
)

// LibreOffice's SinglePageSheets export starts each sheet's page at the
// cell an OOXML workbook was saved scrolled to (its sheet view's
// topLeftCell), dropping the rows above and the columns left of it; nor
// the view's controller nor its view data moves that start. So a
// workbook is converted from a copy without those attributes.
var topLeftCell = regexp.MustCompile(`\stopLeftCell\s*=\s*("[^"]*"|'[^']*')`)

const (
	// maxViewPrefix bounds how much of a worksheet is searched for its
	// sheet views, which come before its cells.
	maxViewPrefix = 1 << 20
	// maxUnscrolled bounds what a workbook's worksheets inflate to in
	// the copy; past it the workbook is converted as it is.
	maxUnscrolled = 512 << 20
)

var errTooLarge = errors.New("worksheets too large to rewrite")

// unscroll replaces the OOXML workbook at path (a file of the work
// directory: it is replaced, not written through, so a hard link to the
// caller's file is never changed) by a copy whose worksheets have no
// saved scroll position. Anything else, or a workbook it cannot read or
// that inflates past maxUnscrolled, is left as it is for LibreOffice to
// judge. The other parts are copied without being inflated.
func unscroll(path string) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil // not a zip: LibreOffice says what it is
	}
	defer zr.Close()
	tmp := path + ".unscroll"
	err = writeUnscrolled(tmp, zr.File)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		if errors.Is(err, errTooLarge) || errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrChecksum) || errors.Is(err, zip.ErrAlgorithm) {
			return nil
		}
	}
	return err
}

func writeUnscrolled(tmp string, files []*zip.File) error {
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	zw := zip.NewWriter(out)
	budget := int64(maxUnscrolled)
	for _, f := range files {
		if err := copyPart(zw, f, &budget); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return out.Close()
}

// copyPart copies f into zw: a worksheet inflated and rewritten, within
// budget; any other part as it is stored.
func copyPart(zw *zip.Writer, f *zip.File, budget *int64) error {
	if !strings.HasPrefix(f.Name, "xl/worksheets/") || !strings.HasSuffix(f.Name, ".xml") {
		w, err := zw.CreateRaw(&f.FileHeader)
		if err != nil {
			return err
		}
		r, err := f.OpenRaw()
		if err != nil {
			return err
		}
		_, err = io.Copy(w, r)
		return err
	}
	h := f.FileHeader
	h.Method = zip.Deflate
	w, err := zw.CreateHeader(&h)
	if err != nil {
		return err
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	n, err := unscrollSheet(w, io.LimitReader(rc, *budget+1))
	if *budget -= n; *budget < 0 {
		return errTooLarge
	}
	return err
}

// unscrollSheet copies a worksheet's XML from r to w without the
// topLeftCell attributes of its sheet views, and returns the bytes read.
func unscrollSheet(w io.Writer, r io.Reader) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var head []byte
	for len(head) < maxViewPrefix && !bytes.Contains(head, []byte("<sheetData")) {
		chunk := make([]byte, 64<<10)
		n, err := br.Read(chunk)
		head = append(head, chunk[:n]...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return int64(len(head)), err
		}
	}
	cut := bytes.Index(head, []byte("<sheetData"))
	if cut < 0 {
		cut = len(head)
	}
	if _, err := w.Write(topLeftCell.ReplaceAll(head[:cut], nil)); err != nil {
		return int64(len(head)), err
	}
	if _, err := w.Write(head[cut:]); err != nil {
		return int64(len(head)), err
	}
	n, err := io.Copy(w, br)
	return int64(len(head)) + n, err
}
