package convert

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"calq/convert/lo"
	"calq/convert/pdf"
	"calq/convert/sniff"
	"calq/sched"
)

// explain is a file's failure as FileResult shows it: reason, a sentence
// a clerk understands without calq's or its tools' terms, and detail,
// the technical text it came from ("" when the reason says it all).
// Errors it does not know read as they are.
func explain(err error) (reason, detail string) {
	reason, detail = sentence(err), err.Error()
	if detail == reason {
		detail = ""
	}
	return reason, detail
}

func sentence(err error) string {
	var (
		to  *timeoutError
		ce  *lo.ConvertError
		se  *sniff.Error
		ie  *pdf.ImageError
		bad *contentError
		pe  *fs.PathError
	)
	switch {
	case errors.As(err, &to):
		return to.Error()
	case errors.As(err, &ce):
		return ce.Explain()
	case errors.As(err, &se):
		return sniffSentence(se)
	case errors.Is(err, pdf.ErrEncrypted):
		return "the PDF is locked with a password, and calq was given none to open it"
	case errors.As(err, &ie) && errors.Is(ie.Err, pdf.ErrImageTooLarge):
		return "the image is too large to convert: " + ie.Why
	case errors.As(err, &ie):
		return "the image is damaged: " + ie.Why
	case errors.As(err, &bad):
		return bad.sentence()
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "the disk calq writes to is full"
	case errors.As(err, &pe) && errors.Is(err, fs.ErrPermission):
		return "calq may not read or write " + filepath.Base(pe.Path) + ": permission denied"
	}
	return err.Error()
}

// kindNames are the file kinds for people, by extension.
var kindNames = map[string]string{
	".doc": "a Word document", ".docx": "a Word document", ".dot": "a Word template", ".dotx": "a Word template",
	".xls": "an Excel workbook", ".xlsx": "an Excel workbook", ".ppt": "a PowerPoint presentation",
	".pptx": "a PowerPoint presentation", ".odt": "an OpenDocument text", ".ods": "an OpenDocument spreadsheet",
	".odp": "an OpenDocument presentation", ".odg": "an OpenDocument drawing", ".rtf": "an RTF document",
	".pdf": "a PDF", ".html": "a web page", ".htm": "a web page", ".txt": "a text file", ".csv": "a CSV table",
	".png": "a PNG image", ".jpg": "a JPEG image", ".jpeg": "a JPEG image", ".tif": "a TIFF image",
	".tiff": "a TIFF image", ".gif": "a GIF image", ".bmp": "a BMP image", ".webp": "a WebP image",
}

// lookNames are sniff's "it looks like X" for people.
var lookNames = map[string]string{
	"a PDF": "a PDF", "an RTF": "an RTF document", "HTML or XML text": "a web page or XML",
	"an HTML or XML text": "a web page or XML", "plain text": "plain text", "a plain text": "plain text",
	"a zip archive": "a zip archive", "a legacy Office (OLE2) file": "an old Office document",
	"a password-protected OOXML file": "a document locked with a password",
}

// sniffSentence is what calq's content check found, for people.
func sniffSentence(se *sniff.Error) string {
	ext := strings.ToLower(filepath.Ext(se.Path))
	kind := kindNames[ext]
	if kind == "" {
		kind = "a " + strings.TrimPrefix(ext, ".") + " file"
	}
	switch {
	case errors.Is(se, sniff.ErrEmpty):
		return "the file is empty"
	case errors.Is(se, sniff.ErrPassword) && ext == ".pdf":
		return "the PDF is locked with a password, and calq was given none to open it"
	case errors.Is(se, sniff.ErrPassword):
		return "the document is locked with a password, and calq was given none to open it"
	case errors.Is(se, sniff.ErrUnsupported) && ext == "":
		return "calq does not convert files without an extension such as .docx or .pdf"
	case errors.Is(se, sniff.ErrUnsupported):
		return "calq does not convert " + ext + " files"
	case strings.HasPrefix(se.Reason, "truncated or corrupt"):
		return "the file is damaged (cut short or corrupt), so it cannot be read as " + kind
	}
	s := "the file is named " + ext + ", but it is not " + kind
	if _, looks, ok := strings.Cut(se.Reason, "it looks like "); ok {
		looks = strings.TrimSuffix(looks, ")")
		if name, known := lookNames[looks]; known {
			looks = name
		}
		s += ": it looks like " + looks
	}
	return s
}

// detected is calq's content check's refusal of a file, read from its
// private copy: the reason without the copy's path, the *sniff.Error
// still reachable for explain.
type detected struct{ err error }

func (d *detected) Error() string {
	var se *sniff.Error
	if errors.As(d.err, &se) {
		return se.Reason
	}
	return d.err.Error()
}

func (d *detected) Unwrap() error { return d.err }

// timeoutError is a file that took longer than its limit; it is
// sched.ErrTimeout.
type timeoutError struct{ limit time.Duration }

func (e *timeoutError) Error() string {
	return "converting it took longer than the limit of " + humanLimit(e.limit) + ", so it was stopped"
}

// humanLimit is a time limit for people: "3 seconds", "1 minute".
func humanLimit(d time.Duration) string {
	n, unit := 0, ""
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		n, unit = int(d/time.Minute), "minute"
	case d >= time.Second && d%time.Second == 0:
		n, unit = int(d/time.Second), "second"
	default:
		return d.String()
	}
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

func (e *timeoutError) Unwrap() error { return sched.ErrTimeout }

// contentError is an image or a PDF that pdfcpu or an image decoder
// rejects: its content is damaged (the same bytes fail again). Its Error
// is the decoder's; sentence says it for people.
type contentError struct {
	kind sniff.Kind
	err  error
}

func (e *contentError) Error() string { return e.err.Error() }

func (e *contentError) sentence() string {
	if e.kind == sniff.Image {
		return "the image is damaged, so calq cannot read it"
	}
	return "the PDF is damaged, so calq cannot read it"
}

func (e *contentError) Unwrap() error { return e.err }

// classes are LibreOffice's reasons as failure classes (see withClass).
var classes = map[string]string{
	lo.ReasonLoadFailed: "LibreOffice cannot open it", lo.ReasonPassword: "wrong password",
	lo.ReasonEncryption: "encryption LibreOffice cannot open", lo.ReasonMemoryLimit: "too much memory",
	lo.ReasonBadOutput: "no usable PDF", lo.ReasonExport: "no usable PDF", lo.ReasonInstanceDied: "LibreOffice stopped",
	lo.ReasonStopped: "LibreOffice stopped", lo.ReasonStartFailed: "LibreOffice did not start",
	lo.ReasonOptions: "settings that cannot be used",
}

// withClass gives err, a file's failure, its class for the history and
// calq serve's monitoring page (sched.Reasoner): a few words that group
// the files failing alike, where the engine would say "permanent" or
// "error". An error of no known class is returned as it is.
func withClass(err error) error {
	var (
		ce  *lo.ConvertError
		se  *sniff.Error
		ie  *pdf.ImageError
		bad *contentError
	)
	class := ""
	switch {
	case err == nil:
	case errors.As(err, &ce):
		class = classes[ce.Reason]
	case errors.As(err, &se):
		class = sniffClass(se)
	case errors.Is(err, pdf.ErrEncrypted):
		class = "locked with a password"
	case errors.As(err, &ie) && errors.Is(ie.Err, pdf.ErrImageTooLarge):
		class = "image too large"
	case errors.As(err, &ie):
		class = "damaged image"
	case errors.As(err, &bad) && bad.kind == sniff.Image:
		class = "damaged image"
	case errors.As(err, &bad):
		class = "damaged PDF"
	}
	if class == "" {
		return err
	}
	return &classed{err: err, class: class}
}

func sniffClass(se *sniff.Error) string {
	switch {
	case errors.Is(se, sniff.ErrEmpty):
		return "empty file"
	case errors.Is(se, sniff.ErrPassword):
		return "locked with a password"
	case errors.Is(se, sniff.ErrUnsupported):
		return "unsupported kind of file"
	case strings.HasPrefix(se.Reason, "truncated or corrupt"):
		return "damaged file"
	}
	return "not what its name says"
}

// classed is an error with its failure class.
type classed struct {
	err   error
	class string
}

func (c *classed) Error() string  { return c.err.Error() }
func (c *classed) Unwrap() error  { return c.err }
func (c *classed) Reason() string { return c.class }
