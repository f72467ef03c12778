import Card
import Glibc
import Output
import Tracing

/// Sinks from `[Sink]`.
package enum SinkFactory {
    package static func make(_ s: SinkSettings, renderer: CardRenderer, log: Logger) throws(Failure) -> any FrameSink {
        let width = renderer.pixelWidth, height = renderer.pixelHeight
        switch s.type {
        case "null":
            return NullSink(width: renderer.pixelWidth, height: renderer.pixelHeight)
        case "png":
            guard s.path != "-", !s.path.isEmpty else {
                throw Failure(.configuration, "Sink.type = png needs Sink.path = DIRECTORY (got \"\(s.path)\")")
            }
            do {
                return try PNGSequenceSink(directory: s.path, width: renderer.pixelWidth, height: renderer.pixelHeight,
                                           coverage: renderer.cardCoverage)
            } catch {
                throw Failure(.cannotCreate, "\(error)")
            }
        case "framebuffer":
            // A missing or busy device is not a startup failure: the sink reports it once
            // and retries with backoff.
            return FramebufferSink(device: s.device, position: s.position, cardWidth: width, cardHeight: height,
                                   report: { log.notice($0, ["sink.device": s.device]) })
        case "shm":
            do {
                return try SharedMemorySink(name: s.name, mode: mode_t(s.mode), width: width, height: height,
                                            report: { log.notice($0, ["sink.name": s.name]) })
            } catch {
                throw Failure(.cannotCreate, "Sink.name = \(s.name): \(error.message)")
            }
        case "raw":
            do {
                return try RawFrameSink(path: s.path, width: width, height: height, fps: s.fps)
            } catch {
                throw Failure(.cannotCreate, "Sink.path = \(s.path): \(error.message)")
            }
        default:
            throw Failure(.configuration, "Sink.type = \(s.type) is not one of framebuffer, shm, raw, png, null")
        }
    }
}
