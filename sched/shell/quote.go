package shell

import "strings"

// Quote quotes w for sh when it needs it: a word of plain characters
// stays as it is, anything else is put in single quotes.
func Quote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// Join quotes each of words and joins them with spaces, so that sh -c
// runs them as they were given.
func Join(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}
