package convert

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Bounds of the assets of a page that count toward its digest: a page
// that references more, or more bytes, counts those it met first.
const (
	maxAssets      = 256
	maxAssetsBytes = 256 << 20 // read and hashed, all assets together
	maxScanBytes   = 8 << 20   // of a page or stylesheet, scanned for references
)

// assetRef finds the local references of HTML and CSS: src, href,
// poster and data attributes, CSS url() and @import.
var assetRef = regexp.MustCompile(`(?i)(?:\b(?:src|href|poster|data)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))` +
	`|url\(\s*(?:"([^"]*)"|'([^']*)'|([^)\s]*))\s*\)|@import\s+(?:"([^"]*)"|'([^']*)'))`)

// pageSum is the digest of an HTML page whose own bytes have digest
// mainSum together with its assets: the files below its directory that it
// references by a relative src, href, poster, data, url() or @import,
// and those its stylesheets reference in turn, so that a page converts
// again when an image or stylesheet it shows changes. A missing asset
// counts as missing. What lies outside the page's directory is not
// counted: Chromium may not load it (Request.Dir). Bounded by maxAssets
// and maxAssetsBytes.
func pageSum(ctx context.Context, page, mainSum string) (string, error) {
	dir := filepath.Dir(page)
	found := map[string]bool{}
	queue := refsOf(page, dir)
	for len(queue) > 0 && len(found) < maxAssets {
		p := queue[0]
		queue = queue[1:]
		if found[p] || p == page {
			continue
		}
		found[p] = true
		if lowerExt(p) == ".css" {
			queue = append(queue, refsOf(p, dir)...)
		}
	}
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range found {
			if !yield(p) {
				return
			}
		}
	})
	h := sha256.New()
	fmt.Fprintf(h, "page\x00%s\x00", mainSum)
	budget := int64(maxAssetsBytes)
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		sum, n, err := boundedSum(ctx, p, budget)
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if err != nil {
			sum = "missing"
		}
		budget -= n
		fmt.Fprintf(h, "%s\x00%s\x00", rel, sum)
	}
	return sumHex(h), nil
}

// refsOf lists the files below dir that the HTML or CSS file at path
// references by relative URLs, in the order met.
func refsOf(path, dir string) []string {
	f, _, err := openRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxScanBytes))
	var out []string
	for _, m := range assetRef.FindAllSubmatch(b, -1) {
		for _, g := range m[1:] {
			if len(g) == 0 {
				continue
			}
			if p, ok := localRef(string(g), filepath.Dir(path), dir); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// localRef resolves a relative reference from a file in base to a path
// below dir; false for a URL with a scheme or host, an absolute path, a
// fragment alone, or a path leaving dir.
func localRef(ref, base, dir string) (string, bool) {
	ref = strings.TrimSpace(ref)
	u, err := url.Parse(ref)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" || strings.HasPrefix(u.Path, "/") {
		return "", false
	}
	p := filepath.Join(base, filepath.FromSlash(u.Path))
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return p, true
}

// boundedSum is the digest of the regular file at path, read up to
// budget bytes (what lies past the budget does not count), and the
// bytes read.
func boundedSum(ctx context.Context, path string, budget int64) (string, int64, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := copyCtx(ctx, h, io.LimitReader(f, max(budget, 0)))
	if err != nil {
		return "", n, err
	}
	return sumHex(h), n, nil
}
