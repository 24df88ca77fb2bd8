package transcript

import (
	"container/list"
	"os"
	"sync"
	"syscall"
)

// fileCache keeps recently written transcript files open, so an append to
// an active session is one write call instead of mkdir, open, stat, read
// and close. A handle is taken out while in use (under the file's path
// lock) and put back after a successful write; the least recently used
// handles are closed beyond max.
type fileCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cachedFile, most recent at front
	byKey map[string]*list.Element
	dirs  map[string]bool // directories known to exist
}

type cachedFile struct {
	path string
	f    *os.File
}

func newFileCache(max int) *fileCache {
	return &fileCache{max: max, order: list.New(), byKey: map[string]*list.Element{}, dirs: map[string]bool{}}
}

// take removes and returns the open handle of path, if cached.
func (c *fileCache) take(path string) *os.File {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[path]
	if !ok {
		return nil
	}
	c.order.Remove(el)
	delete(c.byKey, path)
	return el.Value.(*cachedFile).f
}

// put caches an open handle, closing the least recently used beyond max.
func (c *fileCache) put(path string, f *os.File) {
	var evict []*os.File
	c.mu.Lock()
	if c.max <= 0 {
		c.mu.Unlock()
		f.Close()
		return
	}
	c.byKey[path] = c.order.PushFront(&cachedFile{path: path, f: f})
	for c.order.Len() > c.max {
		el := c.order.Back()
		cf := c.order.Remove(el).(*cachedFile)
		delete(c.byKey, cf.path)
		evict = append(evict, cf.f)
	}
	c.mu.Unlock()
	for _, f := range evict {
		f.Close()
	}
}

// dirKnown and markDir remember directories already created.
func (c *fileCache) dirKnown(dir string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dirs[dir]
}

func (c *fileCache) markDir(dir string) {
	c.mu.Lock()
	c.dirs[dir] = true
	c.mu.Unlock()
}

// closeAll closes every cached handle.
func (c *fileCache) closeAll() error {
	c.mu.Lock()
	var files []*os.File
	for el := c.order.Front(); el != nil; el = el.Next() {
		files = append(files, el.Value.(*cachedFile).f)
	}
	c.order.Init()
	c.byKey = map[string]*list.Element{}
	c.mu.Unlock()
	var first error
	for _, f := range files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// openFileBudget is how many transcript files the mirror keeps open: a
// quarter of the process's file limit (Go raises the soft limit to the
// hard one at start), between 64 and 1024, so active sessions append
// with one write and the rest of the process keeps its descriptors. The
// cap keeps a long-running gateway's descriptor count flat (the soak test
// watches it); a session beyond it reopens its file on the next append.
func openFileBudget() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 64
	}
	return int(min(max(lim.Cur/4, 64), 1024))
}
