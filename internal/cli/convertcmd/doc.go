// Package convertcmd is calq convert and calq convert bench: it reads the
// flags, the config file's profile and the passwords into
// convert.Options, runs convert.Run on this machine or through the shared
// queue, and renders the progress, a line per file and the summary
// (render.go), or JSON Lines. Command is the command.
package convertcmd
