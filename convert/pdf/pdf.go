package pdf

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// ErrEncrypted reports a PDF that cannot be opened without a password (or
// whose permissions forbid the requested change), or a wrong password.
var ErrEncrypted = errors.New("the PDF is password-protected")

var initOnce sync.Once

// Init prepares pdfcpu's configuration once. pdfcpu would otherwise create
// a configuration directory under the user's config dir on first use, and
// racily when several goroutines start at once; calq needs none of it (no
// user fonts: text watermarks use the 14 standard PDF fonts). Init is safe
// to call many times and from many goroutines; every entry point calls it.
func Init() error {
	initOnce.Do(api.DisableConfigDir)
	return nil
}

// newConf returns a fresh configuration for one pdfcpu call that opens
// PDFs with password, as user or owner.
func newConf(password string) *model.Configuration {
	_ = Init()
	c := model.NewDefaultConfiguration()
	c.UserPW = password
	c.OwnerPW = password
	return tune(c)
}

// tune adjusts a configuration to calq's needs. pdfcpu's own default
// optimises on every read and write; calq optimises only when asked
// (Post.Optimize), so big inputs are not paid for twice. Merge keeps the
// inputs' bookmarks without adding one per input file.
func tune(c *model.Configuration) *model.Configuration {
	c.ValidationMode = model.ValidationRelaxed
	c.Optimize = false
	c.OptimizeBeforeWriting = false
	c.CreateBookmarks = true
	c.MergeBookmarkMode = model.MergeBookmarkModePreserve
	return c
}

// protect runs one pdfcpu call and turns a panic into an error: pdfcpu
// panics on some malformed PDFs, and a converter must survive its input.
func protect(op string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: pdfcpu failed on malformed input: %v", op, r)
		}
	}()
	return classify(f())
}

// classify maps pdfcpu's encryption errors onto ErrEncrypted.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pdfcpu.ErrWrongPassword):
		return ErrEncrypted
	case errors.Is(err, pdfcpu.ErrEncrypted), errors.Is(err, pdfcpu.ErrPermissionDenied):
		return fmt.Errorf("%w (%v)", ErrEncrypted, err)
	}
	return err
}

// Info describes a PDF as Inspect reads it.
type Info struct {
	Pages     int
	Encrypted bool
	AES256    bool
	Title     string
	Author    string
	Subject   string
	Keywords  string
	// Permissions are the user access permissions of an encrypted PDF;
	// an unencrypted one allows everything.
	Permissions Permissions
}

// readContext reads and validates path with pdfcpu, which repairs what it
// can (a broken xref table, for one).
func readContext(path, password string, cmd model.CommandMode) (*model.Context, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	conf := newConf(password)
	conf.Cmd = cmd
	var ctx *model.Context
	err = protect("read", func() (err error) {
		ctx, err = api.ReadAndValidate(f, conf)
		return err
	})
	if err != nil && password != "" && !errors.Is(err, ErrEncrypted) && unusablePassword(password) {
		err = fmt.Errorf("%w (%v)", ErrEncrypted, err)
	}
	if err != nil {
		return nil, err
	}
	return ctx, nil
}

// Inspect reads path, validating it, and reports its page count,
// encryption and document information. An encrypted PDF needs its user or
// owner password; without it, or with a wrong one, the error is ErrEncrypted.
func Inspect(path, password string) (Info, error) {
	ctx, err := readContext(path, password, model.LISTINFO)
	if err != nil {
		return Info{}, fmt.Errorf("inspect %s: %w", path, err)
	}
	info := Info{
		Pages:       ctx.PageCount,
		Title:       ctx.Title,
		Author:      ctx.Author,
		Subject:     ctx.Subject,
		Keywords:    ctx.Keywords,
		Permissions: allPermissions,
	}
	if e := ctx.E; e != nil {
		info.Encrypted = true
		info.AES256 = e.V == 5 && e.R >= 5
		info.Permissions = permissionsFromFlags(e.P)
	}
	return info, nil
}
