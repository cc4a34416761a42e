package convert

import (
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// isURL says whether an input is a web address (Options.URLs) rather
// than a path: paths of items are absolute.
func isURL(input string) bool {
	l := strings.ToLower(input)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// urlItems makes an Item of each URL to archive, named from its host
// and path (two of one name numbered, name_2); a URL given twice is taken once; one that is not an http or
// https address with a host is an Item that fails, saying why.
func urlItems(urls []string) ([]Item, []Duplicate) {
	var items []Item
	var dups []Duplicate
	seen := map[string]bool{}
	names := map[string]int{}
	for _, raw := range urls {
		u, err := parseWebURL(raw)
		if err != nil {
			items = append(items, Item{Input: raw, Real: raw, Rel: raw, Fail: err.Error()})
			continue
		}
		s := u.String()
		if seen[s] {
			dups = append(dups, Duplicate{Input: raw, Of: s, Same: true})
			continue
		}
		seen[s] = true
		name := urlName(u)
		if names[name]++; names[name] > 1 {
			name += "_" + strconv.Itoa(names[name])
		}
		items = append(items, Item{Input: s, Real: s, Rel: name + ".url"})
	}
	return items, dups
}

// parseWebURL parses an http or https URL with a host.
func parseWebURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("not a valid URL: %v", errorsUnwrapURL(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("not a web address: want http:// or https://")
	case u.Hostname() == "":
		return nil, fmt.Errorf("not a web address: no host")
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// errorsUnwrapURL drops the *url.Error's repetition of the URL, which
// the result names.
func errorsUnwrapURL(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// maxURLName bounds the length of a name made from a URL, in bytes.
const maxURLName = 120

// urlName is a file name (without extension) made from the URL's host,
// port and path (cleaned of . and ..): every byte other than a letter,
// digit, '.' or '-' becomes '_', no '.' or '_' follows another, and the
// name neither starts with a dot nor runs over maxURLName bytes. http://example.com:8080/a/b.html
// is example.com_8080_a_b (a page's .html or .htm
// is dropped).
func urlName(u *url.URL) string {
	s := strings.ToLower(u.Hostname())
	if p := u.Port(); p != "" {
		s += "_" + p
	}
	s += "_" + strings.Trim(path.Clean("/"+u.Path), "/")
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < maxURLName; i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
		switch last := b.String(); {
		case ok:
			b.WriteByte(c)
		case c == '.' && !strings.HasSuffix(last, ".") && !strings.HasSuffix(last, "_"):
			b.WriteByte(c)
		case !strings.HasSuffix(last, "_") && !strings.HasSuffix(last, "."):
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "_.")
	for _, ext := range []string{".html", ".htm"} {
		name = strings.TrimSuffix(name, ext)
	}
	if name == "" {
		return "page"
	}
	return name
}
