//go:build !linux

package pdfpool

// helpersHere: elsewhere the work is done in calq's own process.
const helpersHere = false
