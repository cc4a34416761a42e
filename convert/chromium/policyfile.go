package chromium

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// insideDir says why a file URL's path is not inside dir once cleaned and
// with the symbolic links of its existing part resolved, or "".
func insideDir(u *url.URL, dir string) string {
	if dir == "" {
		return "is a file, and this conversion may load none"
	}
	if h := strings.ToLower(u.Host); h != "" && h != "localhost" {
		return "names a remote file host"
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == ".." {
			return "climbs out of its directory with .."
		}
	}
	if !filepath.IsAbs(u.Path) {
		return "has a relative path"
	}
	root, err := realPath(dir)
	if err != nil {
		return fmt.Sprintf("cannot be checked: the conversion's directory: %v", err)
	}
	p, err := realPath(u.Path)
	if err != nil {
		return fmt.Sprintf("cannot be checked: %v", err)
	}
	if p != root && !strings.HasPrefix(p, root+string(filepath.Separator)) {
		return "is outside the conversion's directory"
	}
	return ""
}

// realPath cleans p and resolves the symbolic links of its longest
// existing prefix; the rest, which does not exist, is kept as it is.
func realPath(p string) (string, error) {
	p = filepath.Clean(p)
	rest := ""
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("resolving %s: %w", p, err)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest), nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
