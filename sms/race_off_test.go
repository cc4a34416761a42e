//go:build !race

package sms

const raceEnabled = false
