//go:build !linux

// Command writeattack runs on Linux only: its attacks use inotify and
// renameat2 (see main.go).
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "writeattack: runs on Linux only (inotify, renameat2)")
	os.Exit(2)
}
