// SharedMemory: the shared-memory frames protocol (docs/SHM.md): the 128-byte header
// (`SharedMemoryHeader`), the reader that maps a segment and takes its newest whole frame
// (`SharedMemoryReader`), and how a reader advises the kernel on its pages.
//
// Purpose: one definition of the format for the daemon's shm sink (Output) and the
// viewer, so that the viewer reads frames without linking the daemon's display, image or
// device libraries. The offsets are the contract; the unit tests check them.
// Must not import: Output, Raster, or any module that links a C library (layer 2:
// LinuxSystem, Logging).
