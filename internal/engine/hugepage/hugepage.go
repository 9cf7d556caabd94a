// Package hugepage asks the kernel to back large buffers with huge pages.
//
// A 16 MiB buffer fresh from the kernel costs 4,096 page faults at 4 KiB a
// page, and a fault is expensive (more so in a virtual machine): filling
// such a buffer from the page cache took about twice as long as the copy
// itself on the development machine. With transparent huge pages in their
// common "madvise" mode, advising the buffer first cuts that to a handful of
// 2 MiB faults. Only the 2 MiB-aligned inside of a buffer is advised, so no
// memory outside it is drawn into a huge page.
package hugepage

import "unsafe"

// Size is the huge page size that Advise aligns to.
const Size = 2 << 20

// MinAdvised is the smallest buffer Advise touches: below it the aligned
// inside would be at most one page, not worth a system call.
const MinAdvised = 3 * Size

// Advise marks the 2 MiB-aligned inside of b as a candidate for huge pages,
// before b is first written. It changes nothing that b holds or how it is
// used, and failure (no transparent huge pages, another system) is ignored.
func Advise(b []byte) {
	if len(b) < MinAdvised {
		return
	}
	advise(b)
}

// AdviseSlice is Advise for the memory of a slice of any type, up to its
// capacity.
func AdviseSlice[T any](s []T) {
	size := uintptr(cap(s)) * unsafe.Sizeof(*new(T))
	if size < MinAdvised {
		return
	}
	advise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s[:cap(s)]))), size))
}
