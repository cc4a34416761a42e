package config_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"calq/internal/config"
)

func ExampleLoad() {
	dir, err := os.MkdirTemp("", "config")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "config.toml")
	err = os.WriteFile(path, []byte(`
[profiles.archive]
pdfa = 2
mail_to = ["records"]

[smtp]
host = "smtp.example.com"
from = "calq@example.com"
`), 0o600)
	if err != nil {
		log.Fatal(err)
	}

	c, err := config.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	p, err := c.Profile("archive")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.PDFA, p.MailTo, c.SMTP.Host)

	err = os.WriteFile(path, []byte("[profiles.archive]\npdf_a = 2\n"), 0o600)
	if err != nil {
		log.Fatal(err)
	}
	_, err = config.Load(path)
	fmt.Println(err != nil)
	// Output:
	// 2 [records] smtp.example.com
	// true
}
