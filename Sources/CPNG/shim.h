#include <png.h>
#include <zlib.h>

// zlib comes with libpng; its header may belong to another clang module, so the one
// zlib call the PNG wrapper needs is forwarded here.
static inline unsigned long shim_crc32(const unsigned char *bytes, unsigned int count) { return crc32(0L, bytes, count); }

// The upper bound of png_image_write_to_memory's output (png.h's PNG_IMAGE_PNG_SIZE_MAX,
// a macro Swift does not import): a buffer this size lets the image be encoded once.
static inline png_alloc_size_t shim_png_image_size_max(png_image image) { return PNG_IMAGE_PNG_SIZE_MAX(image); }
