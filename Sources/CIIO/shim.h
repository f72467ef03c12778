#include <iio.h>
#include <errno.h>
#include <sys/ioctl.h>
#include <linux/iio/events.h>

/* IIO_GET_EVENT_FD_IOCTL (include/uapi/linux/iio/events.h) on a device's character
 * device: libiio 0.24 has no event API, and ioctl(2) is variadic, which Swift cannot call.
 * Returns the new event descriptor, or -errno. */
static inline int shimmerd_iio_event_fd(int device_fd) {
    int event_fd = -1;
    if (ioctl(device_fd, IIO_GET_EVENT_FD_IOCTL, &event_fd) < 0) return -errno;
    return event_fd;
}
