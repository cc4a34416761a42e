// Package dburl recognises database URLs among --db values and hides
// their passwords for messages.
package dburl

import "strings"

// IsPostgres reports whether s is a PostgreSQL URL, not a journal file.
func IsPostgres(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// IsURL reports whether s looks like a URL (scheme://...) rather than a
// file path.
func IsURL(s string) bool {
	i := strings.Index(s, "://")
	return i > 0 && !strings.ContainsRune(s[:i], '/')
}

// Redact replaces the password of url, if any, with xxxxx.
func Redact(url string) string {
	at := strings.LastIndex(url, "@")
	scheme := strings.Index(url, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return url
	}
	if i := strings.Index(url[scheme+3:at], ":"); i >= 0 {
		return url[:scheme+3+i] + ":xxxxx" + url[at:]
	}
	return url
}
