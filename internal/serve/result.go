package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"calq/internal/serve/jobs"
	"calq/internal/zipfile"
)

// namedPDF is a PDF a job made and the name a client sees it under, as
// Gotenberg names it: a PDF worked on keeps its upload's name, a converted
// document is "report.docx.pdf", a split's parts "report_0.pdf",
// "report_1.pdf". alone, when set, is the name when it is the job's only
// result: "report.pdf" for one converted document, where Gotenberg's name
// is a random one.
type namedPDF struct {
	path, name, alone string
}

// stem is a file name without its extension.
func stem(name string) string { return strings.TrimSuffix(name, filepath.Ext(name)) }

// converted names the PDFs LibreOffice made from job j's uploads, each
// named after the upload it came from (its stored name's stem); alone
// says whether a PDF may stand alone under its upload's stem. people's
// PDFs (a page's request) are named after the stem in a zip too: the
// pages show each file, and "report.docx.pdf" is Gotenberg's clients'.
func converted(j *jobs.Job, paths []string, alone, people bool) []namedPDF {
	byStored := map[string]string{}
	for _, f := range j.Request.Files {
		byStored[stem(f.Stored)] = f.Name
	}
	outs := make([]namedPDF, len(paths))
	for i, p := range paths {
		name, ok := byStored[stem(filepath.Base(p))]
		if !ok {
			name = filepath.Base(p)
		}
		outs[i] = namedPDF{path: p, name: name + ".pdf"}
		if people {
			outs[i].name = stem(name) + ".pdf"
		}
		if alone {
			outs[i].alone = stem(name) + ".pdf"
		}
	}
	return outs
}

// mergedName is the name of job j's merged PDF: after the title of the
// profile t came from, else after the first upload.
func mergedName(j *jobs.Job, t Task) string {
	if s := fileStem(t.Title); s != "" {
		return s + ".pdf"
	}
	if len(j.Request.Files) == 0 {
		return "merged.pdf"
	}
	return stem(j.Request.Files[0].Name) + ".pdf"
}

// splitNames names the parts a split made of the PDF called name, as
// Gotenberg does: numbered from 0 after name's stem ("report_0.pdf"), or,
// when unified into one, the stem alone ("report.pdf").
func splitNames(name string, parts []string, unify bool) []namedPDF {
	outs := make([]namedPDF, len(parts))
	for i, p := range parts {
		outs[i] = namedPDF{path: p, name: fmt.Sprintf("%s_%d.pdf", stem(name), i)}
		if unify {
			outs[i].name = stem(name) + ".pdf"
		}
	}
	return outs
}

// pack makes the job's result: one PDF as it is, several in a zip under
// their names (a repeated name numbered). The result is named after
// Gotenberg-Output-Filename when the request has one; else one PDF keeps
// its name, and a zip is named after the job (see peopleName for the name
// people see).
func (s *Server) pack(j *jobs.Job, pdfs []namedPDF, dir string) (*jobs.Result, error) {
	if len(pdfs) == 0 {
		return nil, badRequest("nothing was converted")
	}
	if len(pdfs) == 1 {
		name := pdfs[0].name
		if pdfs[0].alone != "" {
			name = pdfs[0].alone
		}
		if j.Request.Filename != "" {
			name = j.Request.Filename + ".pdf"
		}
		if err := os.Rename(pdfs[0].path, filepath.Join(dir, "result.pdf")); err != nil {
			return nil, err
		}
		return &jobs.Result{Path: "result.pdf", ContentType: contentTypePDF, Name: name}, nil
	}
	name := j.Request.Filename
	if name == "" {
		name = j.ID
	}
	names := unique(pdfs)
	tmp := filepath.Join(dir, "result.zip.part")
	if err := writeZip(tmp, pdfs, names); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "result.zip")); err != nil {
		return nil, err
	}
	for _, p := range pdfs {
		os.Remove(p.path)
	}
	return &jobs.Result{Path: "result.zip", ContentType: contentTypeZip, Name: name + ".zip", Files: names}, nil
}

// unique is the outputs' names, a repeated one numbered: "a.pdf",
// "a (1).pdf".
func unique(pdfs []namedPDF) []string {
	names := make([]string, len(pdfs))
	seen := map[string]int{}
	for i, p := range pdfs {
		name, base := p.name, stem(p.name)
		for seen[name] > 0 {
			seen[base]++
			name = fmt.Sprintf("%s (%d)%s", base, seen[base], filepath.Ext(p.name))
		}
		seen[name]++
		names[i] = name
	}
	return names
}

func writeZip(path string, files []namedPDF, names []string) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	zw := zipfile.NewWriter(f)
	for i, p := range files {
		if err := zw.AddFile(names[i], p.path); err != nil {
			return err
		}
	}
	return zw.Close()
}
