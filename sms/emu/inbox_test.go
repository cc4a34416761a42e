package emu

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// listed is a +CMGL entry as the modem prints it.
func listed(index, stat int, pdu string) string {
	return fmt.Sprintf("+CMGL: %d,%d,,%d\r\n%s\r\n", index, stat, tpduLen(pdu), pdu)
}

func TestInbox(t *testing.T) {
	e, _ := start(t, Options{Modems: 2, Inbox: []string{deliverV1, strings.ToLower(deliverV2), deliverV1}})
	dev := e.Devices()
	c := dial(t, dev[0])
	// The inbox is announced after the first command; round-robin gave
	// modem 0 the first and third PDU.
	c.do("ATE0", "ATE0\r\r\nOK\r\n\r\n+CMTI: \"SM\",1\r\n\r\n+CMTI: \"SM\",2\r\n")
	c.do("AT+CPMS?", "\r\n+CPMS: \"SM\",2,50,\"SM\",2,50,\"SM\",2,50\r\n\r\nOK\r\n")
	c.do("AT+CMGL=4", "\r\n"+listed(1, 0, deliverV1)+listed(2, 0, deliverV1)+"\r\nOK\r\n")
	c.do("AT+CMGL=0", "\r\nOK\r\n") // listing marked them read
	c.do("AT+CMGR=2", fmt.Sprintf("\r\n+CMGR: 1,,%d\r\n%s\r\n\r\nOK\r\n", tpduLen(deliverV1), deliverV1))
	c.do("AT+CMGD=1", "\r\nOK\r\n")
	c.do("AT+CMGR=1", "\r\n+CMS ERROR: 321\r\n")
	c.do("AT+CMGR=51", "\r\n+CMS ERROR: 321\r\n")
	c.do("AT+CMGL=4", "\r\n"+listed(2, 1, deliverV1)+"\r\nOK\r\n")

	// Planting takes the first free slot and raises +CMTI at once.
	if i, err := e.Plant(dev[0], deliverV2); err != nil || i != 1 {
		t.Fatalf("Plant = %d, %v; want 1, nil", i, err)
	}
	c.expect("\r\n+CMTI: \"SM\",1\r\n")
	c.do(`AT+CMGL="ALL"`, "\r\n"+listed(1, 0, deliverV2)+listed(2, 1, deliverV1)+"\r\nOK\r\n")
	c.do("AT+CMGD=1,4", "\r\nOK\r\n")
	c.do("AT+CMGL=4", "\r\nOK\r\n")
	// Without new-message indications, planting is silent.
	c.do("AT+CNMI=0,0,0,0,0", "\r\nOK\r\n")
	if _, err := e.Plant(dev[0], deliverV1); err != nil {
		t.Fatal(err)
	}
	c.do("AT+CMGL=4", "\r\n"+listed(1, 0, deliverV1)+"\r\nOK\r\n")

	c1 := dial(t, dev[1])
	c1.do("AT+CMGL=4", "AT+CMGL=4\r\r\n"+listed(1, 0, deliverV2)+"\r\nOK\r\n\r\n+CMTI: \"SM\",1\r\n")
}

func TestPlantErrors(t *testing.T) {
	e, _ := start(t, Options{Capacity: 1, Inbox: []string{deliverV1}})
	dev := e.Devices()[0]
	for _, tc := range []struct {
		name, dev, pdu string
		want           error
	}{
		{"unknown device", "/dev/null", deliverV1, ErrNoDevice},
		{"memory full", dev, deliverV1, errMemoryFull},
		{"not hex", dev, "0G", nil},
		{"bad SMSC length", dev, "0700", nil},
	} {
		_, err := e.Plant(tc.dev, tc.pdu)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: Plant = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestReadInbox(t *testing.T) {
	got, err := ReadInbox(strings.NewReader("# planted\n\n" + strings.ToLower(deliverV1) + "\n  " + deliverV2 + "  \n"))
	if err != nil || fmt.Sprint(got) != fmt.Sprint([]string{deliverV1, deliverV2}) {
		t.Errorf("ReadInbox = %v, %v", got, err)
	}
	if _, err := ReadInbox(strings.NewReader(deliverV1 + "\nhello\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("ReadInbox(bad line 2) = %v, want an error naming line 2", err)
	}
}

func TestOptionErrors(t *testing.T) {
	for _, o := range []Options{
		{Modems: -1},
		{FailRate: 1.5},
		{Latency: -1},
		{Capacity: 300},
		{Modems: 2, Capacity: 1, Inbox: []string{deliverV1, deliverV1, deliverV1}},
		{Inbox: []string{"xyz"}},
	} {
		if e, err := Start(t.Context(), o); err == nil {
			e.Close()
			t.Errorf("Start(%+v) succeeded, want an error", o)
		}
	}
}
