// Package base holds what every calq command shares, so that a command
// group needs nothing from app or from another group: the --db, --json
// and --config flags, defined once (DBFlag, JSONFlag, ConfigFlag); the
// store --db names (JournalPath; OpenJournal, WithJournal, which refuses a
// journal that is not there, and WithHistory, which also takes the shared
// queue; OpenSubmitQueue, which waits for a shared queue that is down, and
// DBLink, which reports a database's outages in a line each; StateDir,
// where this machine keeps its own state); ModemLog, the log lines of a
// process that holds modems; the usage error that exits with status 2
// (UsageError, Usagef), the checks of the paths, programs and devices flags
// name (CheckDirWritable, CheckFileWritable, CheckTarget, CheckProgram,
// CheckDevice), and FlagErrors, which collects every bad flag into
// one; the one JSON Lines writer (WriteJSONLine, WriteJSONLines); the
// time flags' parsers (ParseAt, ParseDate, ParseWhen); and the small
// formatters of tables and messages (Plural, OrDash, Seconds, Ratio,
// YesNo, WriteMeasures, QuoteName and SafeText, which keep a hostile name
// from forging a line). All are cheap and safe for concurrent use except
// FlagErrors, which belongs to one Action.
package base
