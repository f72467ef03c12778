// Kernel interfaces Swift cannot call directly: variadic ioctl(2), the futex(2)
// syscall, the fbdev / VT structures, the C11 atomics of the shm header, and
// signalfd(2) (sys/signalfd.h: its function, flags and siginfo record), and epoll(7)
// (sys/epoll.h), through which a write-readiness wait reaches a poll for readability.
// Each helper is a one-line static inline. shim_futex_wake/wait use FUTEX_WAKE/WAIT
// without FUTEX_PRIVATE_FLAG: shared futexes, so waiters in other processes wake.
#ifndef SHIMMERD_CLINUX_SHIM_H
#define SHIMMERD_CLINUX_SHIM_H
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <stdint.h>
#include <linux/fb.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <linux/futex.h>
#include <malloc.h>

static inline int shim_fb_get_vscreeninfo(int fd, struct fb_var_screeninfo *v) { return ioctl(fd, FBIOGET_VSCREENINFO, v); }
static inline int shim_fb_get_fscreeninfo(int fd, struct fb_fix_screeninfo *f) { return ioctl(fd, FBIOGET_FSCREENINFO, f); }
// ioctl(2) with its third argument as the kernel takes it (an unsigned long: a value, or
// an address), for a call prepared beforehand (CrashFlush's restore work).
static inline int shim_ioctl(int fd, unsigned long request, unsigned long argument) { return ioctl(fd, request, argument); }
static inline int shim_kd_set_mode(int fd, unsigned long mode) { return ioctl(fd, KDSETMODE, mode); }
static inline int shim_kd_get_mode(int fd, int *mode) { return ioctl(fd, KDGETMODE, mode); }
static inline const unsigned long shim_kd_text(void) { return KD_TEXT; }
static inline const unsigned long shim_kd_graphics(void) { return KD_GRAPHICS; }
// Console switching handed to this process (console_ioctl(4): VT_SETMODE with VT_PROCESS,
// VT_RELDISP, VT_GETSTATE): the kernel sends `signal` before switching away from the VT
// and after switching back to it; the process answers with VT_RELDISP.
static inline int shim_vt_set_process_mode(int fd, int signal) {
    struct vt_mode m = { .mode = VT_PROCESS, .waitv = 0, .relsig = (short)signal, .acqsig = (short)signal, .frsig = 0 };
    return ioctl(fd, VT_SETMODE, &m);
}
static inline int shim_vt_set_auto_mode(int fd) {
    struct vt_mode m = { .mode = VT_AUTO, .waitv = 0, .relsig = 0, .acqsig = 0, .frsig = 0 };
    return ioctl(fd, VT_SETMODE, &m);
}
static inline int shim_vt_release_display(int fd, unsigned long answer) { return ioctl(fd, VT_RELDISP, answer); }
static inline unsigned long shim_vt_ackacq(void) { return VT_ACKACQ; }
static inline int shim_vt_active(int fd, unsigned short *active) {
    struct vt_stat s;
    int r = ioctl(fd, VT_GETSTATE, &s);
    if (r == 0) *active = s.v_active;
    return r;
}
static inline long shim_futex_wake(uint32_t *addr, int count) { return syscall(SYS_futex, addr, FUTEX_WAKE, count, NULL, NULL, 0); }
static inline long shim_futex_wait(uint32_t *addr, uint32_t expected, const struct timespec *timeout) { return syscall(SYS_futex, addr, FUTEX_WAIT, expected, timeout, NULL, 0); }
static inline int shim_open_nofollow(const char *path, int flags, unsigned mode) { return open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode); }
static inline int shim_openat_nofollow(int dirfd, const char *name, int flags, unsigned mode) { return openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode); }
// O_PATH (a handle on an inode, opened for nothing) is a GNU extension glibc hides from
// Swift's Glibc module; its value is the kernel's (include/uapi/asm-generic/fcntl.h).
static inline int shim_open_path_nofollow(const char *path) { return open(path, 010000000 | O_NOFOLLOW | O_CLOEXEC); }
static inline int shim_errno(void) { return errno; }
// The shm header's `frame` word (docs/SHM.md): a 64-bit store with release ordering
// after the pixels, a load with acquire ordering on the reader side.
static inline void shim_store_release_u64(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static inline uint64_t shim_load_acquire_u64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void shim_store_release_u32(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static inline uint32_t shim_load_acquire_u32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
/* Whether the CPU has AVX2 (the renderer's second compilation of its inner loop). */
static inline int shim_cpu_has_avx2(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}
#endif
