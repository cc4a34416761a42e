package convert

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unicode/utf8"

	"calq/convert/chromium"
	"calq/sched"
)

// pageWorkers are the workers of the Chromium backend: as many as
// conversions the pool runs at once.
func (r *runner) pageWorkers() []sched.Worker {
	n := r.o.HTML.Tabs
	if n <= 0 {
		browsers := r.o.HTML.Chromium.Browsers
		if browsers <= 0 {
			browsers = chromium.DefaultBrowsers()
		}
		tabs := r.o.HTML.Chromium.Tabs
		if tabs <= 0 {
			tabs = chromium.DefaultTabs()
		}
		n = browsers * tabs
	}
	w := make([]sched.Worker, n)
	for i := range w {
		w[i] = sched.WorkerFunc(r.direct)
	}
	return w
}

// toChromium says whether item i, whose checked copy is in, is printed
// by Chromium: a URL, or with the Chromium engine a file named and found
// to be a web page.
func (r *runner) toChromium(i int, in string) bool {
	it := r.items[i]
	return isURL(it.Input) || r.engine == EngineChromium && isPage(it.Input) && isPage(in)
}

// withAssets is the digest that stands for a web page's input with the
// Chromium engine: its own digest sum, Chromium's options, and for an
// HTML file the assets it references (pageSum). Other inputs' digest is
// sum itself.
func (r *runner) withAssets(ctx context.Context, it Item, sum string) (string, error) {
	if r.engine != EngineChromium || !isPage(it.Input) {
		return sum, nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s", sum, r.pageOptions())
	sum = sumHex(h)
	if lowerExt(it.Input) == ".md" {
		return sum, nil // its page reads nothing of the disk
	}
	return pageSum(ctx, it.Real, sum)
}

// pageOptions is what of Options shapes a page's PDF, as JSON.
func (r *runner) pageOptions() string {
	b, _ := json.Marshal(struct {
		Page chromium.PDF
		Load chromium.Load
		NoJS bool
	}{r.o.HTML.page(), r.o.HTML.Load, r.o.HTML.Chromium.DisableJavaScript})
	return string(b)
}

// urlSum stands for a web page's content, which calq cannot know before
// loading it: new each run, so a URL is archived again every time.
func urlSum(u string) string {
	h := sha256.New()
	fmt.Fprintf(h, "url\x00%s\x00%d", u, time.Now().UnixNano())
	return sumHex(h)
}

// pageAs prints item i's web page to out with Chromium, as PDF/A-pdfa
// unless 0: Chromium's PDF then goes through LibreOffice's PDF/A export,
// as images do.
func (r *runner) pageAs(ctx context.Context, i, slot int, in, out string, limit time.Duration, pdfa int) error {
	if pdfa == 0 {
		return classifyPage(ctx, r.page(ctx, i, in, out, limit), limit)
	}
	mid := filepath.Join(r.work.dir, strconv.Itoa(i)+"-page.pdf")
	defer os.Remove(mid)
	if err := classifyPage(ctx, r.page(ctx, i, in, mid, limit), limit); err != nil {
		return err
	}
	return r.onInstance(ctx, slot, mid, out, r.pdfaOptions(limit))
}

// markdownOffice renders the Markdown file in (item i's copy) to a page
// and converts that with LibreOffice: the LibreOffice engine's way.
func (r *runner) markdownOffice(ctx context.Context, i, slot int, in, out string, limit time.Duration, pdfa int) error {
	html, err := r.markdownPage(i, in)
	if err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Dir(html))
	return r.office(ctx, slot, html, out, limit, pdfa)
}

// classifyPage marks Chromium's errors that a retry cannot fix as
// permanent: all but a browser that crashed or a pool that closed, and a
// page that could not be loaded at all (the network may come back). A
// page over its time is timed out.
func classifyPage(ctx context.Context, err error, limit time.Duration) error {
	switch {
	case err == nil || ctx.Err() != nil || sched.IsPermanent(err):
		return err
	case errors.Is(err, chromium.ErrTimeout):
		return sched.Permanent(&timeoutError{limit: limit})
	case errors.Is(err, chromium.ErrNotFound):
		return sched.Permanent(errNoChromium)
	case errors.Is(err, chromium.ErrCrashed), errors.Is(err, chromium.ErrClosed), errors.Is(err, chromium.ErrLoadingFailed):
		return err
	}
	return sched.Permanent(err)
}

// maxTextCheck is how much of a Markdown file checkText reads.
const maxTextCheck = 64 << 10

// checkText refuses a Markdown file that is empty or is not UTF-8
// text: the bytes of another format named .md.
func checkText(path string) error {
	f, _, err := openRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTextCheck))
	if err != nil {
		return err
	}
	if len(b) == maxTextCheck {
		// A character cut at the end is not a fault.
		for k := 0; k < utf8.UTFMax-1 && !utf8.Valid(b); k++ {
			b = b[:len(b)-1]
		}
	}
	switch {
	case len(b) == 0:
		return sched.Permanent(errors.New("the file is empty"))
	case bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b):
		return sched.Permanent(errors.New("content is not Markdown: not UTF-8 text"))
	}
	return nil
}

// sharedPage is how a shared job's web page prints.
type sharedPage struct {
	PDF  chromium.PDF  `json:"pdf"`
	Load chromium.Load `json:"load"`
}

// pageJob readies r, the runner of shared job j whose input is at in,
// for a web page: Chromium (the worker's Pages) prints it, loading it
// from the share when it is there, so that its assets load, else from
// its copy, alone.
func (w *SharedWorker) pageJob(r *runner, j *sched.Job, p sharedPayload, in string) error {
	if j.Kind != kindHTML {
		return nil
	}
	if w.Pages == nil || p.Page == nil {
		return sched.Permanent(fmt.Errorf("convert job %s: a web page, and this worker has no Chromium", j.Key))
	}
	r.engine = EngineChromium
	r.o.HTML = HTMLOptions{Engine: EngineChromium, Page: &p.Page.PDF, Load: p.Page.Load, Pool: w.Pages}
	r.chromium = &lazyChromium{o: r.o.HTML}
	if p.Path != "" && lowerExt(in) != ".md" {
		r.items[0].Real = filepath.Join(w.SharedRoot, filepath.FromSlash(string(p.Path)))
	}
	return nil
}
