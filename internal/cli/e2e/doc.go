// Package e2e holds calq's end-to-end tests and nothing else: the
// testscript files in testdata/script, run by TestScript with calq
// registered as app.Main in the test binary, and the tests that run that
// binary as a process: crashes and signals, PostgreSQL's shared queue,
// network namespaces, and hostile input. The corpora they share with
// other packages stay in the module's testdata.
package e2e
