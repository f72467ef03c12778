import CWaylandClient
import Glibc

/// The shared-memory global (wl_shm): buffers in memory the client and the compositor
/// both map.
package final class Shm {
    let proxy: OpaquePointer
    let connection: WaylandConnection

    /// Binds `global` (an announced "wl_shm") at version 1.
    package init?(_ connection: WaylandConnection, _ global: WaylandGlobal) {
        guard let p = connection.bind(global.name, shim_wl_shm_interface(), version: 1) else { return nil }
        proxy = p
        self.connection = connection
    }

    deinit { wl_shm_destroy(proxy) }

    /// A `width` x `height` XRGB8888 buffer (WL_SHM_FORMAT_XRGB8888, which every
    /// compositor takes) in a memfd of its own: `memfd_create`, `ftruncate`, `mmap`,
    /// `wl_shm_create_pool`, `wl_shm_pool_create_buffer`. Its pixels are zero.
    package func makeBuffer(width: Int, height: Int) throws(WaylandError) -> ShmBuffer {
        let stride = width * 4
        let size = stride * height
        guard width > 0, height > 0, size <= Int(Int32.max) else {
            throw WaylandError("wl_shm buffer \(width) x \(height)", "not a size a pool can hold")
        }
        let fd = shim_memfd_create("shimmerd-background")
        guard fd >= 0 else { throw WaylandError("memfd_create", String(cString: strerror(errno))) }
        defer { close(fd) }
        guard ftruncate(fd, off_t(size)) == 0 else {
            throw WaylandError("ftruncate \(size) bytes", String(cString: strerror(errno)))
        }
        guard let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw WaylandError("mmap \(size) bytes", String(cString: strerror(errno)))
        }
        guard let pool = wl_shm_create_pool(proxy, fd, Int32(size)) else {
            munmap(p, size)
            throw WaylandError("wl_shm_create_pool", connectionFailure(connection.display))
        }
        defer { wl_shm_pool_destroy(pool) }
        guard
            let b = wl_shm_pool_create_buffer(
                pool, 0, Int32(width), Int32(height), Int32(stride),
                WL_SHM_FORMAT_XRGB8888.rawValue)
        else {
            munmap(p, size)
            throw WaylandError("wl_shm_pool_create_buffer", connectionFailure(connection.display))
        }
        return ShmBuffer(b, connection, pixels: p, width: width, height: height, stride: stride)
    }
}

/// A buffer of `Shm.makeBuffer` (wl_buffer): its pixels, mapped, and whether the
/// compositor still reads them (`busy` from attach and commit until wl_buffer.release).
package final class ShmBuffer {
    let proxy: OpaquePointer
    let connection: WaylandConnection
    /// XRGB8888 words, `stride` bytes a row.
    package let pixels: UnsafeMutableRawPointer
    package let width: Int
    package let height: Int
    package let stride: Int
    /// Attached and not yet released: the compositor may read it, the client must not write.
    package var busy = false

    init(
        _ proxy: OpaquePointer, _ connection: WaylandConnection, pixels: UnsafeMutableRawPointer,
        width: Int, height: Int, stride: Int
    ) {
        self.proxy = proxy
        self.connection = connection
        self.pixels = pixels
        self.width = width
        self.height = height
        self.stride = stride
        wl_buffer_add_listener(proxy, &Self.listener.pointee, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        wl_buffer_destroy(proxy)
        munmap(pixels, stride * height)
    }

    nonisolated(unsafe) private static let listener: UnsafeMutablePointer<wl_buffer_listener> = {
        let p = UnsafeMutablePointer<wl_buffer_listener>.allocate(capacity: 1)
        p.initialize(
            to: wl_buffer_listener(release: { data, _ in
                guard let data else { return }
                Unmanaged<ShmBuffer>.fromOpaque(data).takeUnretainedValue().busy = false
            }))
        return p
    }()
}
