package sms

import "calq/internal/phone"

// NormalizeNumber returns the phone number s as the network takes it: an
// optional leading "+" and 3 to 20 digits. The separators people write
// ("+49 151 2345-678", "(0151) 234.56.78", "0151/2345678") are dropped;
// anything else is an error naming s. It is phone.Normalize, the rule
// the address book's numbers follow too.
func NormalizeNumber(s string) (string, error) { return phone.Normalize(s) }
