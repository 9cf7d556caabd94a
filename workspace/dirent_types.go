//go:build linux || darwin || freebsd || netbsd || openbsd

package workspace

import "golang.org/x/sys/unix"

// The walk's entry types are the values of d_type, which parseDirents
// stores as it reads them: were one of them not, the index below would be
// out of range and the package would not compile.
var _ = [1]struct{}{}[(typeUnknown^unix.DT_UNKNOWN)|(typeDir^unix.DT_DIR)|(typeReg^unix.DT_REG)|(typeLink^unix.DT_LNK)]
