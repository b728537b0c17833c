/*
 * Error numbers, as Linux's include/uapi/asm-generic/errno-base.h and
 * errno.h, with Linux's values: a kernel function fails with -EINVAL, a
 * system call returns the same number to ring 3. One header for both:
 * the kernel includes it, the system call ABI (kernel/user/uapi.h) and
 * so user/'s libc include it, and lib/'s own parsers return these too.
 */
#ifndef ERRNO_H
#define ERRNO_H

#define EPERM           1  /* operation not permitted */
#define ENOENT          2  /* no such file or directory */
#define ESRCH           3  /* no such process */
#define EIO             5  /* I/O error */
#define E2BIG           7  /* argument list too long */
#define ENOEXEC         8  /* exec format error */
#define EBADF           9  /* bad file number */
#define ECHILD         10  /* no child processes */
#define EAGAIN         11  /* try again */
#define ENOMEM         12  /* out of memory */
#define EFAULT         14  /* bad address */
#define EBUSY          16  /* device or resource busy */
#define EINVAL         22  /* invalid argument */
#define ENOSPC         28  /* no space left on device */
#define ERANGE         34  /* math result not representable */
#define EDEADLK        35  /* resource deadlock would occur */
#define ENAMETOOLONG   36  /* file name too long */
#define ENOSYS         38  /* invalid system call number */
#define EALREADY      114  /* operation already in progress */

#endif
