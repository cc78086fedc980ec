//go:build !unix

package rawfile

import "os"

// ReadFile is os.ReadFile.
func ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

// OpenFile is os.OpenFile.
func OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
