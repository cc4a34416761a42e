package convertcmd

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"calq/convert"
	"calq/convert/contacts"
	"calq/convert/lo"
	"calq/convert/mail"
	"calq/convert/pdf"
	"calq/convert/pdfpool"
	"calq/internal/cli/base"
	"calq/internal/config"
	"calq/internal/dburl"
	"calq/internal/serve/client"
	"calq/sched"
	"calq/sched/journal"
)

// Command is calq convert.
func Command() *cli.Command {
	return &cli.Command{
		Name:      "convert",
		Usage:     "convert office documents, web pages, images and PDFs to PDF, in batches",
		ArgsUsage: "PATH... [--url URL...]",
		Description: "Converts files and directories (recursively) to PDFs under --out, mirroring the\n" +
			"input tree: office documents on a pool of warm LibreOffice instances, images\n" +
			"and PDFs through pdfcpu. HTML (.html, .htm, .xhtml) and Markdown (.md) files,\n" +
			"and the web pages of --url, are printed by a warm headless Chromium when it is\n" +
			"installed (--html-engine; calq doctor says which), with the page options below.\n" +
			"A page may load public addresses and, for a file, the files of its own\n" +
			"directory and below (a Markdown file's page, nothing of the disk); a change\n" +
			"to the images, stylesheets and scripts it references converts it again. A web\n" +
			"page is archived again on every run. A file whose content does not match its extension,\n" +
			"an empty or password-protected file is rejected with the reason; the rest of\n" +
			"the batch goes on. report.docx and report.xlsx side by side become\n" +
			"report.docx.pdf and report.xlsx.pdf. Every PDF is written to a temporary\n" +
			"file and renamed into place: complete or absent.\n\n" +
			"Post-processing, in this order: --merge, watermark or stamp, metadata,\n" +
			"--optimize, then --encrypt (AES-256; passwords from files or CALQ_OWNER_PASSWORD\n" +
			"and CALQ_USER_PASSWORD, never on the command line). With --merge the PDFs under\n" +
			"--out stay plain and the merged file gets the rest.\n\n" +
			"Every file is a job in the journal (--db): a re-run converts only what is new\n" +
			"or changed (content and options), --force redoes all, a killed run resumes,\n" +
			"and two runs at once never convert a file twice. calq history and calq\n" +
			"analyze history show the jobs. On a postgres:// --db, the same command again\n" +
			"collects the PDFs the workers made since it was interrupted, and -j 0 fails at\n" +
			"once when no live calq worker takes some file's kind (or mounts --shared-root).\n\n" +
			"Profiles in the config file (--config, default $XDG_CONFIG_HOME/calq/config.toml)\n" +
			"hold these options under [profiles.NAME]; flags override them.\n\n" +
			`--json prints one line per file {"message_type":"file","input","output","state",` + "\n" +
			`"reason","seconds","backend"} and then {"message_type":"summary","total","converted",` + "\n" +
			`"skipped","failed","seconds"}. Exit status 0: all converted or unchanged;` + "\n" +
			"3: some failed; 1: nothing could run (LibreOffice missing, say).",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the PDFs under `DIR` (required, or from the profile)"},
			&cli.StringSliceFlag{Name: "include", Usage: "convert only files matching `GLOB` (base name or path below the directory)"},
			&cli.StringSliceFlag{Name: "exclude", Usage: "skip files matching `GLOB`"},
			&cli.StringFlag{Name: "merge", Usage: "also merge all results, in input order, into `FILE`"},
			&cli.StringFlag{Name: "watermark", Usage: "watermark `TEXT` behind each page's content"},
			&cli.StringFlag{Name: "watermark-image", Usage: "watermark with the image `FILE`"},
			&cli.StringFlag{Name: "watermark-style", Usage: "pdfcpu's watermark description, e.g. 'points:48, rotation:45, opacity:0.3'"},
			&cli.BoolFlag{Name: "stamp", Usage: "put the watermark on top of the content (a stamp)"},
			&cli.StringFlag{Name: "title", Usage: "document title"},
			&cli.StringFlag{Name: "author", Usage: "document author"},
			&cli.StringFlag{Name: "subject", Usage: "document subject"},
			&cli.StringFlag{Name: "keywords", Usage: "document keywords"},
			&cli.BoolFlag{Name: "optimize", Usage: "optimize the PDFs with pdfcpu"},
			&cli.BoolFlag{Name: "encrypt", Usage: "encrypt with AES-256 (needs an owner password)"},
			&cli.StringFlag{Name: "owner-password-file", Usage: "read the owner password from `FILE` (or set CALQ_OWNER_PASSWORD)"},
			&cli.StringFlag{Name: "user-password-file", Usage: "read the user (open) password from `FILE` (or set CALQ_USER_PASSWORD)"},
			&cli.StringFlag{Name: "permissions", Usage: "what readers may do: none, print or all (with --encrypt)", DefaultText: "none"},
			&cli.StringSliceFlag{Name: "allow", Usage: "also allow `WHAT`: print, print-high, modify, copy, annotate, fill, extract, assemble"},
			&cli.IntFlag{Name: "pdfa", Usage: "write PDF/A-`N` (1, 2 or 3) through LibreOffice; not with --encrypt"},
			&cli.StringFlag{Name: "profile", Usage: "use the options of profile `NAME` from the config file"},
			base.ConfigFlag(),
			&cli.StringSliceFlag{Name: "mail-to", Usage: "mail the PDFs to `NAME|ADDRESS` (a contact or an address); repeatable"},
			&cli.StringFlag{Name: "priority", Aliases: []string{"p"}, Value: "P2", Usage: "priority class: P0 .. P3"},
			&cli.DurationFlag{Name: "timeout", Usage: "per file, e.g. 2m", DefaultText: "60s + 30s per MiB"},
			&cli.IntFlag{Name: "retries", Value: 1, Usage: "retries of a file whose converter crashed"},
			&cli.BoolFlag{Name: "force", Usage: "convert everything again, even unchanged files"},
			&cli.BoolFlag{Name: "overwrite", Usage: "replace files at the output paths that calq did not write, or wrote for another input"},
			&cli.IntFlag{Name: "instances", Usage: "LibreOffice instances", DefaultText: "from cores and memory"},
			&cli.StringFlag{Name: "state-dir", Value: lo.DefaultStateDir(), Usage: "keep LibreOffice's profiles in `DIR` between runs; empty: a new temporary one each run"},
			&cli.IntFlag{Name: "memory-limit", Usage: "stop a LibreOffice instance that grows over `MiB` while converting, failing that file", DefaultText: "a share of the available memory, 1024 to 2048"},
			&cli.IntFlag{Name: "pdf-memory-limit", Value: pdfpool.DefaultMemoryLimit >> 20, Usage: "stop pdfcpu's work on a file (image, PDF, post-processing, merge) that grows over `MiB`, failing that file"},
			&cli.IntFlag{Name: "max-pdf-pages", Value: pdf.DefaultMaxPages, Usage: "refuse a PDF input of more pages, at once"},
			&cli.IntFlag{Name: "max-pdf-inflated", Value: pdf.DefaultMaxInflated >> 20, Usage: "refuse a PDF input whose streams inflate to more than `MiB` (images aside), at once"},
			&cli.StringFlag{Name: "soffice", EnvVars: []string{"CALQ_SOFFICE"}, Usage: "the soffice program", DefaultText: "found on PATH"},
			&cli.StringFlag{Name: "label", Usage: "name of the batch in calq history"},
			&cli.StringFlag{Name: "server", EnvVars: []string{"CALQ_SERVER"}, Usage: "convert office documents on the warm pool of calq serve at `URL` (its key in $CALQ_SERVER_KEY); everything else stays here"},
			&cli.StringFlag{Name: "shared-root", Usage: "with a postgres:// --db: the inputs and PDFs stay on this share, which every worker mounts (calq worker --shared-root), instead of travelling through the database"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "with a postgres:// --db: files converted here at once; 0 only submits to calq worker processes", DefaultText: "the number of CPUs"},
			base.JSONFlag(),
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only failures"},
		}, append(htmlFlags(), base.DBFlag())...),
		Subcommands: []*cli.Command{benchCommand()},
		Action:      convertAction,
	}
}

func convertAction(c *cli.Context) error {
	o, mailTo, err := convertOptions(c)
	if err != nil {
		return err
	}
	m, closeStores, err := openStores(c, &o, mailTo)
	if err != nil {
		return err
	}
	defer closeStores()
	out := newConvertRenderer(c.App.Writer, c.App.ErrWriter, c.Bool("json"), c.Bool("quiet"))
	out.retries = o.Retries
	o.Planned, o.Status, o.Progress = out.planned, out.status, out.progress
	if cl, ok := o.Office.(*client.Client); ok {
		// The server's instances are how many files are worth sending
		// at once; asking also checks that it is there.
		n, err := cl.Instances(c.Context)
		if err != nil {
			return fmt.Errorf("convert: %w", err)
		}
		// Two documents an instance in flight: the next one is uploaded
		// and queued while one converts (calq convert bench --server).
		o.OfficeSlots = 2 * n
	}
	sum, err := convert.Run(c.Context, o)
	out.finish(sum)
	if m != nil {
		var res mail.Result
		res, err = m.Finish(c.Context, sum.New, sum.Merged, err, time.Now())
		out.mail(res)
	}
	if err != nil {
		return fmt.Errorf("convert: %w", err)
	}
	return nil
}

// openStores opens, into o, what the run keeps its state in, and the
// mail to mailTo (nil without). With a postgres:// --db the files go to
// the shared queue; the provenance of the PDFs, which live on this
// machine, stays in this machine's journal. closeStores closes what was
// opened; after an error nothing is left open.
func openStores(c *cli.Context, o *convert.Options, mailTo []string) (m *mail.Delivery, closeStores func(), err error) {
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	defer func() {
		if err != nil {
			closeAll()
		}
	}()
	dbPath := base.JournalPath(c)
	if dburl.IsPostgres(dbPath) {
		q, err := base.OpenSubmitQueue(c, dbPath)
		if err != nil {
			return nil, nil, fmt.Errorf("convert: %w", err)
		}
		closers = append(closers, q.Close)
		o.Shared = q
		dbPath = base.DefaultJournalPath()
	}
	jn, err := journal.Open(c.Context, dbPath, journal.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("convert: %w", err)
	}
	closers = append(closers, func() { jn.Close() })
	if m, err = prepareMail(c, jn, mailTo, o.Out); err != nil {
		return nil, nil, err
	}
	if o.Store, err = convert.OpenStore(c.Context, jn); err != nil {
		return nil, nil, fmt.Errorf("convert: %w", err)
	}
	o.Journal = jn
	return m, closeAll, nil
}

// prepareMail checks everything the mail to mailTo needs, before any
// conversion, and opens the record of the PDFs earlier mails left
// undelivered; nil without mailTo.
func prepareMail(c *cli.Context, jn *journal.Journal, mailTo []string, out string) (*mail.Delivery, error) {
	if len(mailTo) == 0 {
		return nil, nil
	}
	var m *mail.Delivery
	cfg, err := base.LoadConfig(c)
	if err == nil {
		var book *contacts.Book
		if book, err = contacts.Open(c.Context, jn); err == nil {
			m, err = mail.Prepare(c.Context, cfg, os.Getenv, book, mailTo, out)
		}
	}
	if err != nil {
		return nil, base.Usagef(c, "--mail-to: %w", err)
	}
	if m.Undelivered, err = mail.OpenUndelivered(c.Context, jn); err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	return m, nil
}

// convertOptions reads the flags over the profile, the environment's
// passwords and the config file, checks what they name, and has
// Options.Check refuse what no conversion may be asked: one usage error
// names every problem.
func convertOptions(c *cli.Context) (convert.Options, []string, error) {
	prof, err := loadProfile(c)
	if err != nil {
		return convert.Options{}, nil, err
	}
	var errs base.FlagErrors
	o := readOptions(c, prof, &errs)
	errs.Add(modifierErrors(c, prof)...)
	var readErr error
	o.Post, readErr = readPost(c, prof)
	errs.Add(readErr)
	errs.Add(checkErrors(o, readErr != nil)...)
	if err := errs.Err(c); err != nil {
		return o, nil, err
	}
	mailTo := c.StringSlice("mail-to")
	if !c.IsSet("mail-to") {
		mailTo = prof.MailTo
	}
	return o, mailTo, nil
}

// checkErrors is what Options.Check refuses, one error a line; without
// the missing owner password when reading the passwords failed, which
// the reader's error says.
func checkErrors(o convert.Options, unread bool) []error {
	err := o.Check()
	if err == nil {
		return nil
	}
	joined, ok := errors.Unwrap(err).(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var errs []error
	for _, e := range joined.Unwrap() {
		if !unread || !errors.Is(e, convert.ErrNoOwnerPassword) {
			errs = append(errs, e)
		}
	}
	return errs
}

// flagOr is the flag's value when it is set, else the profile's.
func flagOr(c *cli.Context, flag, fromProfile string) string {
	if c.IsSet(flag) {
		return c.String(flag)
	}
	return fromProfile
}

// maxMemoryLimitMiB is the largest --memory-limit whose bytes an int64
// holds.
const maxMemoryLimitMiB = math.MaxInt64 >> 20

// readOptions reads the flags, over the profile, into the options but
// the post-processing, and records in errs what is wrong with the
// inputs and files they name, the priority, and what needs a
// postgres:// --db.
func readOptions(c *cli.Context, prof config.Profile, errs *base.FlagErrors) convert.Options {
	o := convert.Options{
		Inputs: c.Args().Slice(), Out: flagOr(c, "out", prof.Out),
		Include: c.StringSlice("include"), Exclude: c.StringSlice("exclude"), Merge: c.String("merge"), PDFA: prof.PDFA,
		Force: c.Bool("force"), Overwrite: c.Bool("overwrite"), Timeout: c.Duration("timeout"), Retries: c.Int("retries"), Label: c.String("label"),
		LibreOffice: lo.Options{Instances: c.Int("instances"), Soffice: c.String("soffice"), StateDir: c.String("state-dir")},
		SharedJobs:  c.Int("jobs"), SharedRoot: c.String("shared-root"),
	}
	if c.IsSet("pdfa") {
		o.PDFA = c.Int("pdfa")
	}
	o.URLs = c.StringSlice("url")
	o.HTML = readHTML(c, prof, errs)
	for _, f := range []struct {
		name string
		dst  *int64
	}{{"memory-limit", &o.LibreOffice.MemoryLimit}, {"pdf-memory-limit", &o.PDFWork.MemoryLimit}, {"max-pdf-inflated", &o.PDFLimits.MaxInflated}} {
		*f.dst = int64(c.Int(f.name)) << 20
		if mib := c.Int(f.name); mib > maxMemoryLimitMiB {
			// In bytes it would wrap around to a negative limit.
			errs.Failf(f.name, "%d MiB is above the limit %d", mib, maxMemoryLimitMiB)
			*f.dst = 0
		}
	}
	o.PDFLimits.MaxPages = c.Int("max-pdf-pages")
	checkPaths(o, errs)
	var err error
	if o.Class, err = sched.ParseClass(c.String("priority")); err != nil {
		errs.Errorf("--priority: %w", err)
	}
	postgres := dburl.IsPostgres(base.JournalPath(c))
	switch {
	case c.IsSet("jobs") && !postgres:
		errs.Errorf("--jobs: only with a postgres:// --db (here --instances sets how many files convert at once)")
	case postgres && !c.IsSet("jobs"):
		o.SharedJobs = runtime.NumCPU()
	}
	if postgres && len(o.URLs) > 0 {
		errs.Add(convert.ErrURLsShared)
	}
	readServer(c, &o, postgres, errs)
	if root := o.SharedRoot; root != "" {
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			errs.Errorf("--shared-root %s: not a directory", root)
		} else if !postgres {
			errs.Errorf("--shared-root: only with a postgres:// --db")
		}
	}
	return o
}

// readServer reads --server into o.Office: calq serve's client, which
// takes the place of a pool here. What sets up a local pool, or the
// shared queue, goes with it.
func readServer(c *cli.Context, o *convert.Options, postgres bool, errs *base.FlagErrors) {
	srv := c.String("server")
	if srv == "" {
		return
	}
	cl, err := client.New(srv, os.Getenv("CALQ_SERVER_KEY"))
	if err != nil {
		errs.Errorf("--server: %w", err)
		return
	}
	o.Office = cl
	if postgres {
		errs.Errorf("--server: not with a postgres:// --db (calq worker processes serve that queue)")
	}
	for _, f := range []string{"instances", "soffice", "memory-limit"} {
		if c.IsSet(f) && !(f == "soffice" && os.Getenv("CALQ_SOFFICE") == c.String(f)) {
			errs.Errorf("--%s: not with --server (the server's pool converts)", f)
		}
	}
}

// checkPaths records in errs what is wrong with the inputs, the label
// and the directories and files the options name.
func checkPaths(o convert.Options, errs *base.FlagErrors) {
	if len(o.Inputs) == 0 && len(o.URLs) == 0 {
		errs.Errorf("no PATH to convert (or --url)")
	}
	errs.Add(base.CheckText("--label", o.Label))
	if d := o.LibreOffice.StateDir; d != "" {
		if fi, err := os.Stat(d); err == nil && !fi.IsDir() {
			errs.Errorf("--state-dir %s: not a directory", d)
		}
	}
	switch {
	case o.Out == "":
		errs.Errorf("--out: required (the directory for the PDFs)")
	case o.Out == "-":
		errs.Errorf("--out -: calq writes PDFs into a directory, not to standard output")
	default:
		errs.Add(base.CheckDirWritable("--out", o.Out))
	}
	if o.Merge == "" {
		return
	}
	if dir := filepath.Dir(o.Merge); base.Within(dir, o.Out) {
		// calq creates --out and the directories below it.
		errs.Add(base.CheckTarget("--merge", o.Merge))
	} else {
		errs.Add(base.CheckFileWritable("--merge", o.Merge))
	}
}

// readPost reads the post-processing, over the profile, and the
// passwords; the error is that of reading the passwords and
// permissions, and the encryption then has no owner password.
func readPost(c *cli.Context, prof config.Profile) (pdf.Post, error) {
	var post pdf.Post
	if text, img := flagOr(c, "watermark", prof.Watermark), flagOr(c, "watermark-image", prof.WatermarkImage); text != "" || img != "" {
		post.Watermark = &pdf.Watermark{Text: text, Image: img, Style: flagOr(c, "watermark-style", prof.WatermarkStyle),
			OnTop: c.Bool("stamp") || (!c.IsSet("stamp") && prof.Stamp)}
	}
	if m := (pdf.Metadata{Title: flagOr(c, "title", prof.Title), Author: flagOr(c, "author", prof.Author),
		Subject: flagOr(c, "subject", prof.Subject), Keywords: flagOr(c, "keywords", prof.Keywords)}); m != (pdf.Metadata{}) {
		post.Metadata = &m
	}
	post.Optimize = c.Bool("optimize") || (!c.IsSet("optimize") && prof.Optimize != nil && *prof.Optimize)
	if !encrypts(c, prof) {
		return post, nil
	}
	enc, err := encryption(c, prof)
	if err != nil {
		// Options.Check still sees encryption asked (--pdfa conflicts).
		enc = &pdf.Encryption{}
	}
	post.Encrypt = enc
	return post, err
}

// encrypts says whether the command line or the profile asks for
// encryption.
func encrypts(c *cli.Context, prof config.Profile) bool {
	return c.Bool("encrypt") || (!c.IsSet("encrypt") && prof.Encrypt)
}

// modifierErrors refuses a flag given without the option it modifies
// (from the command line or the profile): it would be ignored.
func modifierErrors(c *cli.Context, prof config.Profile) []error {
	watermark := c.String("watermark") != "" || c.String("watermark-image") != "" ||
		(prof.Watermark != "" && !c.IsSet("watermark")) || (prof.WatermarkImage != "" && !c.IsSet("watermark-image"))
	rules := []struct {
		flags []string
		ok    bool
		needs string
	}{
		{[]string{"watermark-style", "stamp"}, watermark, "--watermark or --watermark-image"},
		{[]string{"permissions", "allow", "owner-password-file", "user-password-file"}, encrypts(c, prof), "--encrypt"},
	}
	var errs []error
	for _, r := range rules {
		for _, f := range r.flags {
			if c.IsSet(f) && !r.ok {
				errs = append(errs, fmt.Errorf("--%s: only with %s", f, r.needs))
			}
		}
	}
	return errs
}

// loadProfile reads the config file and returns the chosen profile (the
// zero Profile without --profile).
func loadProfile(c *cli.Context) (config.Profile, error) {
	cfg, err := base.LoadConfig(c)
	if err != nil {
		return config.Profile{}, err
	}
	name := c.String("profile")
	if name == "" {
		return config.Profile{}, nil
	}
	p, err := cfg.Profile(name)
	if err != nil {
		return p, base.Usagef(c, "--profile: %w", err)
	}
	return p, nil
}

// encryption gathers the passwords: a file named by a flag or the
// profile, else the environment. Without an owner password the
// encryption has none, which Options.Check refuses.
func encryption(c *cli.Context, prof config.Profile) (*pdf.Encryption, error) {
	secret := func(flag, fromProfile, env string) (string, error) {
		if f := c.String(flag); f != "" || fromProfile != "" {
			if f == "" {
				f = fromProfile
			}
			s, err := config.ReadSecret(f)
			if err != nil {
				return "", fmt.Errorf("--%s: %w", flag, err)
			}
			return s, nil
		}
		return os.Getenv(env), nil
	}
	perms := c.String("permissions")
	if perms == "" {
		perms = prof.Permissions
	}
	if perms == "" {
		perms = "none"
	}
	p, err := pdf.ParsePermissions(perms)
	if err != nil {
		return nil, fmt.Errorf("--permissions: %w", err)
	}
	for _, a := range c.StringSlice("allow") {
		if err := allow(&p, a); err != nil {
			return nil, err
		}
	}
	owner, err := secret("owner-password-file", prof.OwnerPasswordFile, "CALQ_OWNER_PASSWORD")
	if err != nil {
		return nil, err
	}
	if owner == "" {
		// Options.Check says so, beside what else is wrong.
		return &pdf.Encryption{Permissions: p}, nil
	}
	user, err := secret("user-password-file", prof.UserPasswordFile, "CALQ_USER_PASSWORD")
	if err != nil {
		return nil, err
	}
	return &pdf.Encryption{UserPassword: user, OwnerPassword: owner, Permissions: p}, nil
}

// allow adds one finer permission.
func allow(p *pdf.Permissions, what string) error {
	flags := map[string]*bool{"print": &p.Print, "print-high": &p.PrintHigh, "modify": &p.Modify, "copy": &p.Copy,
		"annotate": &p.Annotate, "fill": &p.Fill, "extract": &p.Extract, "assemble": &p.Assemble}
	f, ok := flags[strings.ToLower(what)]
	if !ok {
		return fmt.Errorf("--allow: unknown permission %q (valid: print, print-high, modify, copy, annotate, fill, extract, assemble)", what)
	}
	*f = true
	return nil
}
