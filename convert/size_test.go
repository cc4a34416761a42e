package convert

import (
	"testing"

	"calq/convert/lo"
	"calq/sched"
)

// TestSizeOffice: without --instances, calq starts no more LibreOffice
// instances than there are office documents, and keeps at least one worker.
func TestSizeOffice(t *testing.T) {
	def := lo.DefaultInstances()
	jobs := func(kinds ...string) []*sched.Job {
		var js []*sched.Job
		for _, k := range kinds {
			js = append(js, &sched.Job{Kind: k})
		}
		return js
	}
	tests := []struct {
		name  string
		given int
		jobs  []*sched.Job
		want  int
	}{
		{"one document", 0, jobs(kindOffice, kindImage, kindPDF), 1},
		{"only images", 0, jobs(kindImage), 1},
		{"many documents", 0, jobs(kindOffice, kindOffice, kindOffice, kindOffice, kindOffice, kindOffice, kindOffice, kindOffice), min(def, 8)},
		{"given", 5, jobs(kindOffice), 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{o: Options{LibreOffice: lo.Options{Instances: tt.given}}}
			r.sizeOffice(tt.jobs)
			if got := r.o.LibreOffice.Instances; got != tt.want {
				t.Errorf("instances = %d, want %d", got, tt.want)
			}
		})
	}
}
