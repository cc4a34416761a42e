// Package lo converts office documents to PDF with a pool of warm,
// headless LibreOffice instances.
//
// [New] starts the pool; [Instance.Convert] hands one document at a time
// to one instance; [Pool.Close] stops every instance. [Find] locates
// soffice and reports its version without starting a pool.
//
// How a document reaches a warm instance: each instance is an
// `soffice --headless` holding a small document open, so it stays up,
// with its own profile (-env:UserInstallation), HOME and TMPDIR. Convert
// runs a second, short-lived `soffice --convert-to pdf` with the same
// profile: LibreOffice hands that request over its own pipe to the
// running instance, waits until it is done and exits. The hand-over
// costs about 0.1 s, against about 1 s to start a new soffice per file.
// The client's exit status says nothing (it is 0 when the document could
// not be loaded): the output file is the only verdict.
//
// Robustness: the input is linked or copied under a safe ASCII name into
// a work directory private to the instance, with a private output
// directory, so odd names and equal stems cannot collide. When Convert's
// context is done the instance's whole process group is killed, any
// output removed, and the instance restarted by the next call. An
// instance is also restarted after Options.MaxConversions documents or
// above Options.MaxRSS. Every process runs through calq/internal/proc, so
// none outlives calq, even when calq is SIGKILLed.
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
// Cost: an instance takes about 1 s to start and 150 MB or more of
// memory. A Pool and its Instances are safe for concurrent use; an
// Instance converts one document at a time and queues other callers.
package lo
