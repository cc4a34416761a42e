package download

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"time"

	"calq/internal/serve/form"
	"calq/internal/serve/webhook"
)

// Options bound and direct Fetch.
type Options struct {
	// Policy decides which addresses may be reached; nil is the zero
	// Policy: public addresses only.
	Policy *webhook.Policy
	// Limits are the request's: MaxFiles counts uploads and downloads
	// together, MaxFile bounds each download, MaxBody all of them.
	Limits form.Limits
	// Timeout bounds all the downloads of one request, within ctx;
	// 0 is DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout is Options.Timeout's default.
const DefaultTimeout = 2 * time.Minute

// maxRedirects is how many redirects one download follows.
const maxRedirects = 5

// Fetch downloads entries one after the other into dir and adds each to
// f as one of its files, named by the reply's Content-Disposition
// filename, else the URL path's last segment. On error nothing Fetch
// wrote is left, and an error the download caused is a *form.Error: 403
// for an address the policy refuses, 413 over a bound, 400 for a download
// that failed; one of the server's own (its disk) is a plain error.
func Fetch(ctx context.Context, f *form.Form, dir string, entries []Entry, o Options) error {
	if len(entries) == 0 {
		return nil
	}
	lim := o.Limits.WithDefaults()
	if n := len(f.Files) + len(entries); n > lim.MaxFiles {
		return &form.Error{Status: http.StatusRequestEntityTooLarge, Limit: form.LimitFiles,
			Msg: fmt.Sprintf("The request has more than %d files.", lim.MaxFiles)}
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if o.Policy == nil {
		o.Policy = &webhook.Policy{}
	}
	d := &fetcher{f: f, dir: dir, lim: lim, policy: o.Policy, client: client(o.Policy),
		budget: lim.MaxBody, added: map[string]bool{}}
	defer d.client.CloseIdleConnections()
	for _, file := range f.Files {
		d.budget -= file.Size
	}
	for _, e := range entries {
		if err := d.fetch(ctx, e); err != nil {
			d.undo()
			return err
		}
	}
	return nil
}

// fetcher is Fetch's state.
type fetcher struct {
	f      *form.Form
	dir    string
	lim    form.Limits
	policy *webhook.Policy
	client *http.Client
	budget int64           // bytes left for downloads under MaxBody
	added  map[string]bool // the paths of the files Fetch added
}

// undo removes the files Fetch added.
func (d *fetcher) undo() {
	kept := d.f.Files[:0]
	for _, file := range d.f.Files {
		if d.added[file.Path] {
			os.Remove(file.Path)
		} else {
			kept = append(kept, file)
		}
	}
	d.f.Files = kept
}

func (d *fetcher) fetch(ctx context.Context, e Entry) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL, nil)
	if err != nil {
		return failed(e.URL, err)
	}
	if err := d.policy.Check(req.URL); err != nil {
		return d.clientError(e.URL, err)
	}
	req.Header.Set("User-Agent", "calq")
	for k, v := range e.ExtraHTTPHeaders {
		req.Header.Set(k, v)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return d.clientError(e.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &form.Error{Status: http.StatusBadRequest,
			Msg: fmt.Sprintf("Unable to download file from '%s': got status: '%s'", redacted(e.URL), resp.Status)}
	}
	lim, over := d.limitFor(resp.ContentLength)
	if over != nil {
		return over
	}
	name := fileName(resp)
	file, err := d.f.AddFile(ctx, d.dir, lim, e.formField(), name, resp.Body)
	var fe *form.Error
	switch {
	case errors.As(err, &fe) && fe.Limit == form.LimitFile && lim.MaxFile < d.lim.MaxFile:
		return d.overBody()
	case fe != nil:
		return fe
	case errors.Is(err, form.ErrRead):
		return d.clientError(e.URL, err)
	case err != nil:
		return fmt.Errorf("store the download of %s: %w", redacted(e.URL), err)
	}
	d.added[file.Path] = true
	d.budget -= file.Size
	return nil
}

// limitFor is the request's limits with MaxFile cut to the bytes left
// under MaxBody, or the error for a reply that declares more.
func (d *fetcher) limitFor(declared int64) (form.Limits, error) {
	lim := d.lim
	if d.budget < lim.MaxFile {
		lim.MaxFile = max(d.budget, 0)
	}
	if declared > lim.MaxFile {
		if lim.MaxFile < d.lim.MaxFile {
			return lim, d.overBody()
		}
		return lim, &form.Error{Status: http.StatusRequestEntityTooLarge, Limit: form.LimitFile,
			Msg: fmt.Sprintf("A file of '%s' exceeds the size limit of %d bytes.", Field, lim.MaxFile)}
	}
	return lim, nil
}

// overBody is the error for downloads that, with the uploads, pass MaxBody.
func (d *fetcher) overBody() error {
	return &form.Error{Status: http.StatusRequestEntityTooLarge, Limit: form.LimitBody,
		Msg: fmt.Sprintf("The request's files and those of '%s' exceed the size limit of %d bytes.", Field, d.lim.MaxBody)}
}

// clientError is the error for a download that could not be made or read:
// 403 when the policy refused its address, 400 otherwise.
func (d *fetcher) clientError(raw string, err error) error {
	var re *webhook.RefusedError
	if errors.As(err, &re) {
		return &form.Error{Status: http.StatusForbidden, Err: err,
			Msg: fmt.Sprintf("Forbidden: '%s' may not download from %s: %s", Field, redacted(raw), refusal(re))}
	}
	return failed(raw, err)
}

func failed(raw string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is already in the sentence
	}
	return &form.Error{Status: http.StatusBadRequest, Err: err,
		Msg: fmt.Sprintf("Unable to download file from '%s': %s", redacted(raw), err)}
}

// refusal says why an address is refused, without the webhooks' words.
func refusal(re *webhook.RefusedError) string {
	if re.Host == "" || re.Host == re.Addr.String() {
		return fmt.Sprintf("%s is a private, loopback or reserved address", re.Addr)
	}
	return fmt.Sprintf("%s is %s, a private, loopback or reserved address", re.Host, re.Addr)
}

// redacted is raw without a password, for replies and logs.
func redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Redacted()
}

// fileName is the reply's Content-Disposition filename, else its final
// URL's last path segment; form.AddFile cleans it.
func fileName(resp *http.Response) string {
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil && params["filename"] != "" {
		return params["filename"]
	}
	return path.Base(resp.Request.URL.Path)
}
