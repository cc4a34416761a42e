package app

// Flags anywhere: urfave/cli v2 stops parsing flags at a command's first
// positional argument, so "calq convert in -o out" would take "-o" for a
// path. reorderArgs moves each command's flags before its positional
// arguments first, by that command's own flag definitions, the way GNU
// getopt permutes argv.

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// reordered is a command line with each command's flags first.
type reordered struct {
	args      []string // to parse
	afterDash []string // the words after the user's "--", nil without one
	dash      bool     // the user wrote "--" for the leaf command
}

// reorderArgs returns args (args[0] is the program) with the flags of
// every command level moved before its positional arguments:
//
//   - a word naming a subcommand, before any positional argument, enters
//     that subcommand; flags seen so far stay with the command before it;
//   - a value flag (per the command's definitions) takes the next word,
//     unless it is written --flag=value; a bool flag takes none;
//   - "-j4" is "-j 4" when j is a one-letter value flag and "j4" no flag;
//   - "--" ends flags: it and what follows are positional, in place;
//   - "--version" and "-V" before any command mean "calq version";
//   - an unknown flag stays where the flags go, for urfave to report.
//
// At the leaf command, a "--" is put between the flags and the positional
// arguments, so that a path starting with "-" after the user's "--" is
// never taken for a flag.
func reorderArgs(app *cli.App, args []string) reordered {
	if len(args) == 0 {
		return reordered{args: args}
	}
	out := []string{args[0]}
	flags := append(slices.Clone(app.Flags), cli.HelpFlag)
	subs := app.Commands
	rest := args[1:]
	root := true
	for {
		var fl, pos []string
		var next *cli.Command
		var after []string
		dash, dangling := false, false
		i := 0
		for ; i < len(rest); i++ {
			w := rest[i]
			if w == "--" {
				dash = true
				after = slices.Clone(rest[i+1:])
				i = len(rest)
				break
			}
			if root && len(pos) == 0 && (w == "--version" || w == "-V") {
				w = "version"
			}
			if len(w) > 1 && w[0] == '-' {
				words, takesNext := splitFlag(flags, w)
				fl = append(fl, words...)
				if takesNext {
					if i+1 == len(rest) || rest[i+1] == "--" {
						dangling = true // for urfave to say it needs a value
						continue
					}
					i++
					fl = append(fl, rest[i])
				}
				continue
			}
			if len(pos) == 0 && len(subs) > 0 {
				if c := findCommand(subs, w); c != nil {
					next = c
					break
				}
			}
			pos = append(pos, w)
		}
		out = append(out, fl...)
		if next != nil {
			out = append(out, next.Name)
			rest = rest[i+1:]
			flags = append(slices.Clone(next.Flags), cli.HelpFlag)
			subs = next.Subcommands
			root = false
			continue
		}
		if dangling {
			return reordered{args: out}
		}
		if len(pos) > 0 || dash {
			out = append(out, "--")
		}
		out = append(out, pos...)
		out = append(out, after...)
		return reordered{args: out, afterDash: after, dash: dash}
	}
}

// findCommand returns the command of subs named or aliased name.
func findCommand(subs []*cli.Command, name string) *cli.Command {
	for _, c := range subs {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// splitFlag reads one flag word w of a command with flags: the words to
// pass on, and whether the flag's value is the next word.
func splitFlag(flags []cli.Flag, w string) (words []string, takesNext bool) {
	name := strings.TrimLeft(w, "-")
	name, _, hasValue := strings.Cut(name, "=")
	if f := findFlag(flags, name); f != nil {
		return []string{w}, takesValue(f) && !hasValue
	}
	// -j4: a one-letter value flag joined to its value.
	if !strings.HasPrefix(w, "--") && len(name) > 1 && !hasValue {
		if f := findFlag(flags, name[:1]); f != nil && takesValue(f) {
			return []string{"-" + name[:1], w[2:]}, false
		}
	}
	return []string{w}, false
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	v, ok := f.(interface{ TakesValue() bool })
	return ok && v.TakesValue()
}
