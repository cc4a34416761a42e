//go:build race

package e2e

// raceEnabled: this test binary, and so the calq serve it runs, is built
// with the race detector, which takes more memory.
const raceEnabled = true
