package pdf

import (
	"context"
	"errors"
	"io"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// PassThrough validates the PDF in and writes it at out as pdfcpu rewrites
// it: a damaged cross-reference table is rebuilt, the Producer becomes
// pdfcpu and the creation and modification dates are set to now. A PDF
// that needs a password to open gives ErrEncrypted; one that opens without
// a password but has an owner password stays encrypted as it was.
func PassThrough(ctx context.Context, in, out string) error {
	return produce(ctx, "pass through "+in, out, func(s *stage) (string, error) {
		return s.transform("validate", in, rewrite)
	})
}

// Merge writes at out the pages of ins, in order. Existing bookmarks are
// kept; the document information comes from the first input. An encrypted
// input gives ErrEncrypted.
func Merge(ctx context.Context, ins []string, out string) error {
	if len(ins) == 0 {
		return errors.New("merge: no input")
	}
	return produce(ctx, "merge", out, func(s *stage) (string, error) {
		return s.write(func(w io.Writer) error {
			conf := newConf("")
			conf.Cmd = model.MERGECREATE
			return protect("merge", func() error {
				return api.Merge("", append([]string(nil), ins...), w, conf, false)
			})
		})
	})
}
