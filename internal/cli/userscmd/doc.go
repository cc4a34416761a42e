// Package userscmd is calq users: who may call calq serve (add, list,
// show, remove, set, with their SMS rights in sms.go) and their API keys
// (key), kept in the journal by calq/internal/serve/users. Command is the
// group; one file per leaf.
package userscmd
