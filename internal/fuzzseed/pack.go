package fuzzseed

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// Pack adds the loose corpus files of dir (testdata/fuzz/<Target>) to
// dir + ".zip" and removes them, and the directory once empty; it returns
// how many files it packed. The zip holds every entry it held and the new
// ones, in name order, with no timestamps, so the same seeds give the
// same bytes. Every file must decode (Decode) and a file whose name an
// entry already has must hold the same bytes; otherwise nothing changes.
func Pack(dir string) (int, error) {
	zipPath := filepath.Clean(dir) + ".zip"
	entries := map[string][]byte{}
	if err := readZip(zipPath, entries); err != nil {
		return 0, err
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("fuzzseed: %w", err)
	}
	var packed []string
	for _, f := range files {
		if f.IsDir() {
			return 0, fmt.Errorf("fuzzseed: %s: a directory in a corpus", filepath.Join(dir, f.Name()))
		}
		path := filepath.Join(dir, f.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return 0, fmt.Errorf("fuzzseed: %w", err)
		}
		if _, err := Decode(data); err != nil {
			return 0, fmt.Errorf("fuzzseed: %s: %w", path, err)
		}
		if old, ok := entries[f.Name()]; ok && !bytes.Equal(old, data) {
			return 0, fmt.Errorf("fuzzseed: %s: %s already holds another seed of that name", path, zipPath)
		}
		entries[f.Name()] = data
		packed = append(packed, path)
	}
	if err := writeZip(zipPath, entries); err != nil {
		return 0, err
	}
	for _, path := range packed {
		if err := os.Remove(path); err != nil {
			return 0, fmt.Errorf("fuzzseed: %w", err)
		}
	}
	if err := os.Remove(dir); err != nil {
		return 0, fmt.Errorf("fuzzseed: %w", err)
	}
	return len(packed), nil
}

// readZip adds the entries of the zip at path, if there is one, to entries.
func readZip(path string, entries map[string][]byte) error {
	zr, err := zip.OpenReader(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("fuzzseed: %w", err)
	}
	defer zr.Close()
	for _, zf := range zr.File {
		r, err := zf.Open()
		if err != nil {
			return fmt.Errorf("fuzzseed: %s: %w", path, err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return fmt.Errorf("fuzzseed: %s: %w", path, err)
		}
		entries[zf.Name] = data
	}
	return nil
}

// writeZip writes entries to path (through a temporary file renamed over
// it), deflated, in name order, without timestamps.
func writeZip(path string, entries map[string][]byte) error {
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			return fmt.Errorf("fuzzseed: %w", err)
		}
		if _, err := w.Write(entries[name]); err != nil {
			return fmt.Errorf("fuzzseed: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("fuzzseed: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("fuzzseed: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("fuzzseed: %w", err)
	}
	return nil
}
