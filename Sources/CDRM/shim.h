// libdrm (Debian libdrm-dev, pkg-config libdrm): the KMS API of xf86drmMode.h, the
// master and event calls of xf86drm.h, the fourcc codes of drm_fourcc.h.
#include <stdint.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>

// Macros Swift cannot import (fourcc_code() and DRM_IOWR() are function-like macros).
static inline uint32_t shim_drm_format_xrgb8888(void) { return DRM_FORMAT_XRGB8888; }
static inline unsigned long shim_drm_ioctl_mode_setcrtc(void) { return DRM_IOCTL_MODE_SETCRTC; }
