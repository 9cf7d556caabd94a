package hugepage

import (
	"syscall"
	"unsafe"
)

func advise(b []byte) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + Size - 1) &^ (Size - 1)
	end := (p + uintptr(len(b))) &^ (Size - 1)
	if end <= start {
		return
	}
	_ = syscall.Madvise(b[start-p:end-p], syscall.MADV_HUGEPAGE)
}
