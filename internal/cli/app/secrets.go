package app

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"calq/internal/childenv"
	"calq/internal/cli/base"
	"calq/internal/config"
	"calq/internal/dburl"
)

// hidingSecrets runs action after hiding this run's secrets from every
// child calq starts (childenv.Hide, which internal/proc applies to each):
// the variables the config file names (*_env) and, when calq uses
// PostgreSQL (--db or CALQ_DB names a database), libpq's password
// variables. One place, before any command can start a child, so that no
// caller has to pass the names on.
func hidingSecrets(action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		childenv.Hide(secretEnv(c)...)
		if db := base.JournalPath(c); db != os.Getenv("CALQ_DB") && dburl.HasPassword(db) {
			// Too late to hide it, but not to say so.
			fmt.Fprintln(c.App.ErrWriter, "calq: warning: the password in --db is visible to every user of this machine (ps); "+
				"give it in PGPASSWORD or ~/.pgpass instead")
		}
		return action(c)
	}
}

// secretEnv names the variables that hold this run's secrets.
func secretEnv(c *cli.Context) []string {
	names := config.SecretEnv(configPath(c))
	if dburl.IsPostgres(base.JournalPath(c)) || dburl.IsPostgres(os.Getenv("CALQ_DB")) {
		names = append(names, "PGPASSWORD", "PGSSLPASSWORD")
	}
	return names
}

// configPath is the config file's path: --config or $CALQ_CONFIG, for a
// command with neither the default. It is read loosely (config.SecretEnv):
// a command without --config still hides what the user's file names.
func configPath(c *cli.Context) string {
	if p := c.String("config"); p != "" {
		return p
	}
	if p := os.Getenv("CALQ_CONFIG"); p != "" {
		return p
	}
	p, _ := config.DefaultPath()
	return p
}
