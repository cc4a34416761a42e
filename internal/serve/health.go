package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// healthView is GET /health: Gotenberg's shape, with calq's instances
// and queue in the details.
type healthView struct {
	Status  string                  `json:"status"`
	Details map[string]healthDetail `json:"details"`
}

type healthDetail struct {
	Status    string         `json:"status"`
	Timestamp time.Time      `json:"timestamp"`
	Instances []instanceView `json:"instances,omitempty"`
	Waiting   *int           `json:"waiting,omitempty"`
	Busy      *int           `json:"busy,omitempty"`
	Rate      *float64       `json:"service_rate,omitempty"` // documents per second and instance, measured
	// Chromium's: its browser processes, restarts, conversions and the
	// last error of a browser.
	Browsers    *int   `json:"browsers,omitempty"`
	Restarts    *int64 `json:"restarts,omitempty"`
	Conversions *int64 `json:"conversions,omitempty"`
	LastError   string `json:"last_error,omitempty"`
}

type instanceView struct {
	Name   string `json:"name"`
	State  string `json:"state"`  // idle or busy
	Starts int    `json:"starts"` // 1 for an instance warm since the server started
}

// health answers whether the server can convert: 200 with "up", 503 with
// "down" when it has no LibreOffice, its Chromium's browsers do not
// answer, or it is stopping.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	now := s.opts.now().UTC()
	st := s.files.Stats()
	lo := healthDetail{Status: "up", Timestamp: now, Waiting: &st.Waiting, Busy: &st.Busy, Rate: &st.ServiceRate}
	if s.opts.Pool == nil {
		lo.Status = "down"
	} else {
		for i, inst := range s.opts.Pool.Instances() {
			state := "idle"
			if i < len(s.busy) && s.busy[i].Load() {
				state = "busy"
			}
			lo.Instances = append(lo.Instances, instanceView{Name: inst.Name(), State: state, Starts: inst.Starts()})
		}
	}
	if s.base.Err() != nil {
		lo.Status = "down"
	}
	v := healthView{Status: lo.Status, Details: map[string]healthDetail{"libreoffice": lo,
		"jobs": {Status: "up", Timestamp: now}}}
	if c, ok := s.chromiumHealth(r.Context(), now); ok {
		if s.base.Err() != nil {
			c.Status = "down"
		}
		v.Details["chromium"] = c
		if c.Status != "up" {
			v.Status = "down"
		}
	}
	status := http.StatusOK
	if v.Status != "up" {
		status = http.StatusServiceUnavailable
	}
	// Gotenberg's exact type: its clients and the suite compare it.
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		json.NewEncoder(w).Encode(v)
	}
}

// version is GET /version: calq's version alone, as Gotenberg answers
// its own (the word after "calq" in calq version's line).
func (s *Server) version(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8") // Gotenberg's, byte for byte
	v := s.opts.Version
	if v == "" {
		v = "(devel)"
	}
	io.WriteString(w, v)
}
