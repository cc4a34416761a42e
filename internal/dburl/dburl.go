// Package dburl recognises PostgreSQL addresses among --db values, in
// both of libpq's forms (a postgres:// URL, a keyword/value string such
// as "host=db user=calq dbname=calq"), and takes their passwords out:
// [Redact] for messages, [WithoutPassword] for a child's environment,
// [Scrub] for text that may quote an address (a driver's error).
//
// Every function is pure, cheap (one pass over its input) and safe for
// concurrent use.
package dburl

import (
	"net/url"
	"regexp"
	"strings"
)

// IsPostgres reports whether s is a PostgreSQL address, not a journal
// file: a postgres:// or postgresql:// URL, or a keyword/value string
// (see IsDSN).
func IsPostgres(s string) bool {
	return isPostgresURL(s) || IsDSN(s)
}

func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// HasScheme reports whether s starts with a URL scheme (scheme://...),
// whatever the scheme, rather than being a file path: see IsPostgres for
// the addresses calq connects to.
func HasScheme(s string) bool {
	i := strings.Index(s, "://")
	return i > 0 && !strings.ContainsRune(s[:i], '/')
}

// IsDSN reports whether s is a libpq keyword/value connection string,
// as pgx reads it: KEY=VALUE pairs separated by white space, a value
// either plain (backslash escapes) or in single quotes, at least one key
// being one of libpq's (host, dbname, user, ...). A file name such as
// "a=b.db" is not one.
func IsDSN(s string) bool {
	pairs, ok := parseDSN(s)
	if !ok {
		return false
	}
	for _, p := range pairs {
		if libpqKeys[p.key] {
			return true
		}
	}
	return false
}

// libpqKeys are the keywords that make a keyword/value string a
// connection string rather than a file name.
var libpqKeys = map[string]bool{
	"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true, "password": true,
	"passfile": true, "service": true, "sslmode": true, "sslpassword": true, "connect_timeout": true,
	"application_name": true, "target_session_attrs": true,
}

// secretKeys are the keywords (and URL query parameters) whose values
// are secrets.
var secretKeys = map[string]bool{"password": true, "sslpassword": true}

// dsnSpace separates the pairs of a keyword/value string.
const dsnSpace = " \t\n\r\v\f"

// pair is one KEY=VALUE of a keyword/value string: its key, and where
// the whole pair and its value (quotes included) are in the string.
type pair struct {
	key                string
	start, vstart, end int
}

// parseDSN splits s into its pairs, as pgconn's parseKeywordValueSettings
// does; ok is false when s is not a keyword/value string.
func parseDSN(s string) (pairs []pair, ok bool) {
	const space = dsnSpace
	i := skip(s, 0, space)
	if i == len(s) || strings.IndexByte(s, 0) >= 0 {
		return nil, false
	}
	for i < len(s) {
		eq := strings.IndexByte(s[i:], '=')
		if eq <= 0 {
			return nil, false
		}
		key := strings.TrimRight(s[i:i+eq], space)
		if key == "" || strings.ContainsAny(key, space+"'\\") {
			return nil, false
		}
		p := pair{key: key, start: i}
		v := skip(s, i+eq+1, space)
		p.vstart = v
		end, ok := valueEnd(s, v)
		if !ok {
			return nil, false
		}
		p.end = end
		pairs = append(pairs, p)
		i = skip(s, end, space)
	}
	return pairs, true
}

// valueEnd returns where the value starting at v ends: after its closing
// quote, or at the first unescaped white space.
func valueEnd(s string, v int) (int, bool) {
	quoted := v < len(s) && s[v] == '\''
	i := v
	if quoted {
		i++
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case quoted && c == '\'':
			return i + 1, true
		case !quoted && strings.IndexByte(dsnSpace, c) >= 0:
			return i, true
		}
	}
	return min(i, len(s)), !quoted
}

func skip(s string, i int, set string) int {
	for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
		i++
	}
	return i
}

// Redact replaces the passwords of a database address (a URL's user
// information and password or sslpassword parameters, a keyword/value
// string's password and sslpassword, a password=VALUE in what is neither)
// with xxxxx, for messages that name the address.
func Redact(s string) string {
	return rewrite(s, func(string) string { return "xxxxx" })
}

// WithoutPassword is s, a PostgreSQL address, with its passwords left
// out: what a child may be told of the database, to reach it with
// PGPASSWORD or ~/.pgpass of its own.
func WithoutPassword(s string) string {
	return rewrite(s, nil)
}

// HasPassword reports whether the PostgreSQL address s carries a password.
func HasPassword(s string) bool {
	return len(Passwords(s)) > 0
}

// Passwords returns the passwords s, a PostgreSQL address, carries, as
// written in it and as the server gets them (unescaped, unquoted).
func Passwords(s string) []string {
	var pws []string
	rewrite(s, func(pw string) string {
		pws = append(pws, pw)
		return pw
	})
	var out []string
	for _, pw := range pws {
		if pw == "" {
			continue
		}
		out = append(out, pw)
		if u, err := url.PathUnescape(pw); err == nil && u != pw && isPostgresURL(s) {
			out = append(out, u)
		}
		if u := unescapeDSN(pw); u != pw && !isPostgresURL(s) {
			out = append(out, u)
		}
	}
	return out
}

// Scrub replaces in text every password that the address db carries
// (see Passwords) with xxxxx: for messages that may quote db, such as a
// driver's errors.
func Scrub(text, db string) string {
	for _, pw := range Passwords(db) {
		text = strings.ReplaceAll(text, pw, "xxxxx")
	}
	return text
}

// rewrite replaces each password of s by repl(password), or drops it
// when repl is nil.
func rewrite(s string, repl func(string) string) string {
	switch {
	case HasScheme(s):
		return rewriteURL(s, repl)
	case IsDSN(s):
		return rewriteDSN(s, repl)
	}
	// Not an address calq takes, such as a DSN with an unterminated quote,
	// which a usage error quotes: a password in it is hidden all the same.
	out := looseKV.ReplaceAllStringFunc(s, func(kv string) string {
		i := strings.IndexByte(kv, '=') + 1
		i = skip(kv, i, dsnSpace)
		if repl == nil {
			return ""
		}
		return kv[:i] + repl(kv[i:])
	})
	if repl == nil {
		out = strings.TrimRight(out, dsnSpace)
	}
	return out
}

// looseKV is a password=VALUE in a string that is not a well-formed
// keyword/value string: the value is quoted (perhaps without its closing
// quote, then to the end) or runs to the next white space.
var looseKV = regexp.MustCompile(`\b(?:ssl)?password\s*=\s*(?:'(?:[^'\\]|\\.)*'?|\S*)`)

func rewriteURL(s string, repl func(string) string) string {
	scheme := strings.Index(s, "://") + 3
	rest := s[scheme:]
	// The user information ends at the last '@' before the query or
	// fragment, as net/url reads it: a password may hold '@' and '/'.
	end := strings.IndexAny(rest, "?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		if c := strings.Index(rest[:at], ":"); c >= 0 {
			user, pw := rest[:c], rest[c+1:at]
			if repl == nil {
				rest = user + rest[at:]
			} else {
				rest = user + ":" + repl(pw) + rest[at:]
			}
		}
	}
	q := strings.Index(rest, "?")
	if q < 0 {
		return s[:scheme] + rest
	}
	query, frag, hasFrag := strings.Cut(rest[q+1:], "#")
	var kept []string
	for _, param := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(param, "=")
		if ku, err := url.QueryUnescape(k); err == nil && secretKeys[ku] {
			if repl == nil {
				continue
			}
			param = k + "=" + repl(v)
		}
		kept = append(kept, param)
	}
	out := s[:scheme] + rest[:q]
	if len(kept) > 0 {
		out += "?" + strings.Join(kept, "&")
	}
	if hasFrag {
		out += "#" + frag
	}
	return out
}

func rewriteDSN(s string, repl func(string) string) string {
	pairs, _ := parseDSN(s)
	var b strings.Builder
	last := 0
	for _, p := range pairs {
		if !secretKeys[p.key] {
			continue
		}
		if repl == nil {
			b.WriteString(s[last:p.start])
			last = skip(s, p.end, dsnSpace)
			continue
		}
		b.WriteString(s[last:p.vstart])
		b.WriteString(repl(s[p.vstart:p.end]))
		last = p.end
	}
	b.WriteString(s[last:])
	if repl == nil {
		return strings.TrimRight(b.String(), dsnSpace)
	}
	return b.String()
}

// unescapeDSN is a keyword/value string's value as the server gets it:
// without its quotes and backslashes.
func unescapeDSN(v string) string {
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		v = v[1 : len(v)-1]
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// Wrap is err as "op ADDRESS: err", for errors of opening or reaching
// the database db: the address redacted, and every password it carries
// scrubbed from err's text too (a driver's message may quote what it was
// given). errors.Is and errors.As see err.
func Wrap(op, db string, err error) error {
	return &wrapped{msg: op + " " + Redact(db) + ": " + Scrub(err.Error(), db), err: err}
}

type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }
