package app

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print calq's version, VCS revision and Go version",
		Description: "Prints the main module version recorded in the binary ((devel) when built from a\n" +
			"checkout), the VCS revision and commit time when the build recorded them, and\n" +
			"the Go version and platform. With --json, prints one object:\n" +
			`{"message_type":"version","version":...,"revision":...,"time":...,` + "\n" +
			`"modified":...,"go_version":...,"os":...,"arch":...}` + "\n" +
			"(revision, time and modified are left out when unknown).",
		Flags: []cli.Flag{
			base.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return base.Usagef(c, "unexpected argument %q", c.Args().First())
			}
			v := readVersion()
			if c.Bool("json") {
				return base.WriteJSONLine(c.App.Writer, v.MessageType, v)
			}
			return v.writeText(c.App.Writer)
		},
	}
}

// versionInfo is the output of calq version; its JSON form is documented
// in the command's description.
type versionInfo struct {
	MessageType string `json:"message_type"`
	Version     string `json:"version"`
	Revision    string `json:"revision,omitempty"`
	Time        string `json:"time,omitempty"`
	Modified    bool   `json:"modified,omitempty"`
	GoVersion   string `json:"go_version"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
}

func readVersion() versionInfo {
	v := versionInfo{
		MessageType: "version",
		Version:     "(devel)",
		GoVersion:   runtime.Version(),
		OS:          runtime.GOOS,
		Arch:        runtime.GOARCH,
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// writeText writes one line, for example
// "calq v0.1.0 (rev 0123abcd 2025-01-02T03:04:05Z, modified) go1.26.0 linux/amd64".
func (v versionInfo) writeText(w io.Writer) error {
	vcs := ""
	if v.Revision != "" {
		vcs = " (rev " + strings.TrimSpace(v.Revision+" "+v.Time)
		if v.Modified {
			vcs += ", modified"
		}
		vcs += ")"
	}
	_, err := fmt.Fprintf(w, "calq %s%s %s %s/%s\n", v.Version, vcs, v.GoVersion, v.OS, v.Arch)
	return err
}
