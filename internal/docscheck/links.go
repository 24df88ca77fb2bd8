package docscheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// external reports whether a link target leaves the repository (a URL with
// a scheme, or mail).
func external(target string) bool {
	return strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:")
}

// brokenLinks checks every relative link of the documents (paths relative
// to root) and returns one message per link whose file or #anchor does not
// exist.
func brokenLinks(root string, files []string) ([]string, error) {
	parsed := map[string]doc{}
	read := func(rel string) (doc, error) {
		if d, ok := parsed[rel]; ok {
			return d, nil
		}
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return doc{}, err
		}
		d := parse(string(b))
		parsed[rel] = d
		return d, nil
	}
	var broken []string
	for _, f := range files {
		d, err := read(f)
		if err != nil {
			return nil, err
		}
		for _, l := range d.links {
			if l.target == "" || external(l.target) {
				continue
			}
			path, anchor, _ := strings.Cut(l.target, "#")
			target := f
			if path != "" {
				target = filepath.Join(filepath.Dir(f), filepath.FromSlash(path))
				if _, err := os.Stat(filepath.Join(root, target)); err != nil {
					broken = append(broken, fmt.Sprintf("%s:%d: %s: no such file", f, l.line, l.target))
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			td, err := read(target)
			if err != nil {
				return nil, err
			}
			if !anchors(td.headings)[anchor] {
				broken = append(broken, fmt.Sprintf("%s:%d: %s: %s has no heading #%s", f, l.line, l.target, target, anchor))
			}
		}
	}
	return broken, nil
}
