package pdfpool

// helpersHere: helpers run on Linux, where /proc gives their memory.
const helpersHere = true
