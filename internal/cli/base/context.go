package base

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"calq/internal/config"
)

// Metadata keys the app sets before it runs a command.
const (
	MetaArgv      = "argv"      // []string: the command line as typed
	MetaAfterDash = "afterDash" // []string: what followed the leaf command's "--"; absent without one
)

// ArgsAfterDash returns what the user wrote after the command's "--", and
// whether there was one. c.Args() holds the positional arguments before it
// followed by these.
func ArgsAfterDash(c *cli.Context) ([]string, bool) {
	after, ok := c.App.Metadata[MetaAfterDash].([]string)
	return after, ok
}

// LoadConfig reads the config file: --config or $CALQ_CONFIG, else the
// default path. A file named by the flag that cannot be read is a usage
// error; the default that is missing reads as an empty config.
func LoadConfig(c *cli.Context) (config.Config, error) {
	path := c.String("config")
	if path == "" {
		var err error
		if path, err = config.DefaultPath(); err != nil {
			return config.Config{}, err
		}
	}
	cfg, err := config.Load(path)
	if err != nil && c.IsSet("config") {
		return cfg, Usagef(c, "--config: %w", err)
	}
	return cfg, err
}

// WarnTo returns a Warn that prints "calq: warning: ..." on w, escaped:
// a warning may quote a message, a number or what a modem said.
func WarnTo(w io.Writer) func(error) {
	return func(err error) { fmt.Fprintf(w, "calq: warning: %s\n", SafeText(err.Error())) }
}
