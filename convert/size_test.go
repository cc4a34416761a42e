package convert

import (
	"testing"

	"calq/convert/lo"
	"calq/sched"
)

// TestSizeOffice: without --instances, calq starts one LibreOffice
// instance per second of estimated conversion work, at least one, at most
// the default.
func TestSizeOffice(t *testing.T) {
	def := lo.DefaultInstances()
	jobs := func(kinds ...string) []*sched.Job {
		var js []*sched.Job
		for _, k := range kinds {
			js = append(js, &sched.Job{Kind: k})
		}
		return js
	}
	repeat := func(kind string, n int) []*sched.Job {
		var kinds []string
		for range n {
			kinds = append(kinds, kind)
		}
		return jobs(kinds...)
	}
	tests := []struct {
		name  string
		given int
		jobs  []*sched.Job
		want  int
	}{
		{"one document", 0, jobs(kindOffice, kindImage, kindPDF), 1},
		{"only images", 0, jobs(kindImage), 1},
		{"few documents: one instance", 0, jobs(kindOffice, kindOffice, kindOffice, kindOffice, kindOffice, kindOffice, kindOffice, kindOffice), 1},
		{"many documents", 0, repeat(kindOffice, 200), def},
		{"enough for two", 0, repeat(kindOffice, 21), min(def, 2)},
		{"given", 5, jobs(kindOffice), 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{o: Options{LibreOffice: lo.Options{Instances: tt.given}}}
			r.sizeOffice(t.Context(), tt.jobs)
			if got := r.o.LibreOffice.Instances; got != tt.want {
				t.Errorf("instances = %d, want %d", got, tt.want)
			}
		})
	}
}
