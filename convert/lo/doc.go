// Package lo converts office documents to PDF with a pool of warm,
// headless LibreOffice instances.
//
// [New] starts the pool; [Instance.Convert] hands one document at a time
// to one instance; [Pool.Close] stops every instance. [Find] locates
// soffice and reports its version without starting a pool.
// [Instance.Stats] and [Pool.Stats] report each instance's state,
// counters and memory for monitoring, safe to call at any time.
//
// How a document reaches a warm instance: each instance is an
// `soffice --headless` with its own profile (-env:UserInstallation), HOME
// and TMPDIR, listening on a UNO pipe (--accept=pipe). Beside it runs a
// small Python helper (unohelper.py, embedded; see uno.go) connected to
// it, which takes one JSON request per document on stdin, loads the
// document hidden and read-only with macros never run, exports it with
// the PDF filter of the module it opened in, closes it, and answers on
// stdout: no process is started per document. It does that work on
// LibreOffice's main thread (through com.sun.star.awt.AsyncCallback), as
// soffice --convert-to does: from a bridge thread LibreOffice spends
// about 10 % more CPU per document. It needs a python3 with
// the uno module (Debian's python3-uno). Without one, the instance holds
// a small document open, so it stays up, and Convert runs a second,
// short-lived `soffice --convert-to pdf` with the same profile, which
// LibreOffice hands over its own pipe to the running instance (about
// 0.1 s more per document). Either way the output file is the only
// verdict: soffice exits 0 when a document could not be loaded.
//
// Export options: ConvertOptions.Export ([Export]) carries what Gotenberg's
// LibreOffice route takes (page ranges, PDF/UA, image quality and
// resolution, a source password, landscape, LibreOffice's own
// watermarks, and the viewer's and other switches of [FilterFields]);
// [Export.Check] vets it. With SinglePageSheets, an OOXML workbook is
// converted from a copy whose sheets forget where they were scrolled to
// (unscroll), or each sheet's page would start there.
// They become the export filter's FilterData on both routes; landscape
// (page styles changed in the loaded document) and a password (a load
// property) need the UNO helper. A wrong password is told apart from a
// broken document by loading it once more without one: a failed load
// that then asks for a password is [ReasonPassword]. One that does not
// ask, of a document calq's content check finds encrypted, is an
// encryption LibreOffice does not know (AES-GCM from a newer LibreOffice,
// for one), which no password opens here: [ReasonEncryption].
// [ConvertError.Explain] says each reason in words for people.
//
// Robustness: the input is linked or copied under a safe ASCII name into
// a work directory private to the instance, with a private output
// directory, so odd names and equal stems cannot collide. When Convert's
// context is done the instance's whole process group is killed, any
// output removed, and the instance restarted by the next call. An
// instance is also restarted after Options.MaxConversions documents or
// above Options.MaxRSS. Every soffice instance runs under
// calq/internal/proc's guard, so none outlives calq, even when calq is
// SIGKILLed; helpers and clients run as proc.Child, without a guard: they
// end with their instance or their input, and get SIGKILL when calq dies.
//
// Memory: while an instance converts, the resident memory of its process
// group is read from /proc every 200 ms; above Options.MemoryLimit
// ([DefaultMemoryLimit]: a share of the available memory, 1 to 2 GiB) the
// instance is killed and the conversion fails with [ReasonMemoryLimit].
// Not RLIMIT_AS: it bounds virtual memory (about 1.5 times the resident
// memory of soffice.bin here), and LibreOffice 7.4 answers a refused
// allocation by failing quietly, exit status 0, "source file could not be
// loaded" or a write error (measured here), which reads as a broken
// document rather than as the limit.
//
// Environment: an instance sees only the variables on
// calq/internal/childenv's allow-list, so no password of calq's reaches
// it, plus its own HOME and TMPDIR and a UTF-8 locale.
//
// Hardening: each profile is written with macros disabled (security
// level "very high", macro execution off), links to untrusted referers
// blocked (no linked image, section or field is fetched, local or
// remote), link updates off in Writer and Calc, and a manual proxy on a
// dead loopback port as a second line for http(s). RTF input is the one
// exception the profile cannot stop (LibreOffice's RTF import loads a
// local file named by an INCLUDEPICTURE field): the private copy of an
// RTF document has the instructions of such fields blanked.
//
// Cost: an instance takes about 0.7 s of a core to start and 150 MB or
// more of memory; a profile kept in Options.StateDir between pools starts
// sooner than a new one. A Pool and its Instances are safe for concurrent use; an
// Instance converts one document at a time and queues other callers.
package lo
