package lo

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"calq/convert/internal/gendoc"
	"calq/internal/proc"
	"calq/internal/tooltest"
)

// The two benchmarks convert the same 20 small DOCX (2-5 pages) one after
// another: through one warm instance, and with one soffice process per
// file as scripts do. Each reports s/doc; compare them from one run:
//
//	go test -run '^$' -bench 'Warm|Cold' -benchtime 3x ./convert/lo

func benchDocs(b *testing.B) []string {
	tooltest.Require(b, "soffice")
	docs, err := gendoc.Batch(b.TempDir(), 20, "small")
	if err != nil {
		b.Fatal(err)
	}
	return docs
}

func BenchmarkWarm(b *testing.B) {
	docs := benchDocs(b)
	p, err := New(b.Context(), Options{Instances: 1, StateDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	inst, out := p.Instances()[0], filepath.Join(b.TempDir(), "out.pdf")
	// Writer's first document loads the module: start-up, not throughput.
	if err := inst.Convert(b.Context(), docs[0], out, ConvertOptions{}); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for b.Loop() {
		for _, d := range docs {
			if err := inst.Convert(b.Context(), d, out, ConvertOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N*len(docs)), "s/doc")
}

func BenchmarkCold(b *testing.B) {
	docs := benchDocs(b)
	l := layout{b.TempDir()}
	if err := l.prepare(hardening); err != nil {
		b.Fatal(err)
	}
	outDir := b.TempDir()
	soffice := func(doc string) error {
		cmd := proc.Command(b.Context(), proc.Options{Dir: outDir, Env: instanceEnv(os.Environ(), l.home(), l.tmp())},
			"soffice", profileArg(l.profileURL()), "--headless", "--norestore", "--convert-to", "pdf", "--outdir", outDir, doc)
		if err := cmd.Run(); err != nil {
			return err
		}
		_, err := os.Stat(filepath.Join(outDir, filepath.Base(doc[:len(doc)-len(filepath.Ext(doc))])+".pdf"))
		return err
	}
	// A fresh profile's first start may restart itself: initialise it.
	soffice(docs[0])
	if err := soffice(docs[0]); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for b.Loop() {
		for _, d := range docs {
			if err := soffice(d); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N*len(docs)), "s/doc")
}
