package docscheck

import (
	"os"
	"strings"
	"testing"
)

// TestLinksResolve fails on every relative link or #anchor of README.md and
// docs/**/*.md that points nowhere.
func TestLinksResolve(t *testing.T) {
	root := testRoot(t)
	files, err := userDocs(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("found only %v: is the module root %s?", files, root)
	}
	broken, err := brokenLinks(root, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(broken) > 0 {
		t.Errorf("%d broken links:\n%s", len(broken), strings.Join(broken, "\n"))
	}
}

func testRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := moduleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	return root
}
