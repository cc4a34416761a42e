package fonts_test

import (
	"context"
	"fmt"
	"os"

	"calq/convert/fonts"
)

// A report of the writing systems no installed font covers, with the
// package to install for each.
func ExampleCover() {
	cov, err := fonts.Cover(context.Background(), os.Environ(), fonts.Scripts)
	if err != nil {
		fmt.Println("fontconfig:", err)
		return
	}
	for _, c := range cov {
		if !c.Covered() {
			fmt.Printf("%s: apt-get install %s\n", c.Name, c.Package)
		}
	}
}
