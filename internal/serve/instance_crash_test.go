package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"calq/convert/lo"
	"calq/internal/serve/jobs"
)

// TestInstanceKilledMidJob: soffice.bin SIGKILLed while it converts a
// job's document. Killed once, the document is converted again (on
// another instance, or the one restarted) and the job is done; killed at
// every try, the job fails after a bounded number of tries, saying that
// LibreOffice died.
func TestInstanceKilledMidJob(t *testing.T) {
	tests := []struct {
		name  string
		route string
		kills int // how many tries are killed
		state jobs.State
	}{
		{"killed once", routeConvert, 1, jobs.Done},
		{"killed at every try", routeConvert, officeRetries + 1, jobs.Failed},
		{"PDF/A of a PDF, killed once", routePDFA, 1, jobs.Done},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, nil)
			doc, fields := upload{"files", "long.txt", longText(8000)}, map[string]string(nil)
			if tt.route == routePDFA {
				resp := post(t, ts.URL+"/forms/"+routeConvert, []upload{{"files", "long.txt", longText(1500)}}, nil, nil)
				doc, fields = upload{"files", "long.pdf", body(t, resp)}, map[string]string{"pdfa": "PDF/A-2b"}
			}
			resp := post(t, ts.URL+"/jobs", []upload{doc}, fields, http.Header{"Calq-Route": {tt.route}})
			var v jobView
			if err := json.Unmarshal(body(t, resp), &v); err != nil || resp.StatusCode != http.StatusAccepted {
				t.Fatalf("POST /jobs: %d, %v", resp.StatusCode, err)
			}
			killed := map[int]bool{}
			for k := range tt.kills {
				killConverting(t, ts.opts.Pool, k+1, killed)
			}
			v = finalView(t, ts.URL, v.ID)
			if v.State != tt.state {
				t.Fatalf("the job after %d kills: %s %q, want %s", tt.kills, v.State, v.Error, tt.state)
			}
			died := (&lo.ConvertError{Reason: lo.ReasonInstanceDied}).Explain()
			if tt.state == jobs.Failed && strings.Count(v.Error, died) != 1 {
				t.Errorf("the job's error %q does not say once that LibreOffice died", v.Error)
			}
			if tt.state == jobs.Done {
				pages(t, pdfFile(t, body(t, get(t, ts.URL+"/jobs/"+v.ID+"/result", ""))))
			}
		})
	}
}

// killConverting waits until an instance of p converts a document (the
// n-th try of one) with a soffice.bin not killed before, and SIGKILLs it.
func killConverting(t *testing.T, p *lo.Pool, n int, killed map[int]bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		for i, st := range p.Stats() {
			if st.State != lo.StateBusy {
				continue
			}
			pids := slices.DeleteFunc(sofficeBins(p.Instances()[i].Name()), func(pid int) bool { return killed[pid] })
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
				killed[pid] = true
			}
			if len(pids) > 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("try %d: no instance converting after 2 minutes", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sofficeBins are the pids of the soffice.bin of this process's
// instance name (its profile is under calq-lo-PID-*/name/).
func sofficeBins(name string) []int {
	var pids []int
	mark := fmt.Sprintf("calq-lo-%d-", os.Getpid())
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.Contains(string(stat), "(soffice.bin) ") && !strings.Contains(string(stat), ") Z ") && // not a zombie
			strings.Contains(string(cmd), mark) &&
			strings.Contains(string(cmd), "/"+name+"/") {
			pids = append(pids, pid)
		}
	}
	return pids
}
