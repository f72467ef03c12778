import Card
import Glibc
import Output
import Tracing

/// Sinks from `[Sink]`.
package enum SinkFactory {
    /// - Parameter describe: "Sink.path = X (FILE:LINE)" for a key and its value, so a
    ///   sink that cannot be opened is reported where it was configured.
    package static func make(_ s: SinkSettings, renderer: CardRenderer, log: Logger,
                             describe: (String, String) -> String = { "\($0) = \($1)" }) throws(Failure) -> any FrameSink {
        let width = renderer.pixelWidth, height = renderer.pixelHeight
        switch s.type {
        case "null":
            return NullSink(width: renderer.pixelWidth, height: renderer.pixelHeight)
        case "png":
            guard s.path != "-", !s.path.isEmpty else {
                throw Failure(.configuration, "Sink.type = png needs Sink.path = DIRECTORY (got \"\(s.path)\")")
            }
            do {
                let sink = try PNGSequenceSink(directory: s.path, width: renderer.pixelWidth, height: renderer.pixelHeight,
                                               coverage: renderer.cardCoverage)
                if sink.firstNumber > 1 {
                    log.notice("png \(s.path) already holds frames up to \(PNGSequenceSink.fileName(sink.firstNumber - 1)); continuing at \(PNGSequenceSink.fileName(sink.firstNumber))",
                               ["sink.path": s.path])
                }
                return sink
            } catch {
                throw Failure(.cannotCreate, "\(describe("Sink.path", s.path)): \(error)")
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
                throw Failure(.cannotCreate, "\(describe("Sink.name", s.name)): \(error.message)")
            }
        case "raw":
            do {
                let sink = try RawFrameSink(path: s.path, width: width, height: height, fps: s.fps,
                                            report: { log.warning($0, ["sink.path": s.path]) })
                if let padded = sink.paddedBytes {
                    log.warning("raw \(s.path) ended in a partial frame; \(padded) zero bytes added so that new frames start on a frame boundary",
                                ["sink.path": s.path])
                }
                return sink
            } catch {
                throw Failure(.cannotCreate, "\(describe("Sink.path", s.path)): \(error.message)")
            }
        default:
            throw Failure(.configuration, "Sink.type = \(s.type) is not one of framebuffer, shm, raw, png, null")
        }
    }

    /// Whether a reload from `old` to `new` settings may keep `sink` open: the same
    /// output (the same file, FIFO, directory, segment or device, and card size), so a
    /// reader of a FIFO or a segment sees no gap and no end, and two sinks never share
    /// one output. What may differ is handed to the open sink: `Sink.fps` (raw),
    /// `Sink.mode` (shm).
    package static func canCarryOver(_ sink: any FrameSink, from old: SinkSettings, to new: SinkSettings, sameSize: Bool,
                                      log: Logger) -> Bool {
        guard sameSize, old.type == new.type else { return false }
        switch new.type {
        case "raw":
            guard old.path == new.path, let raw = sink as? RawFrameSink else { return false }
            raw.fps = new.fps
        case "png":
            guard old.path == new.path else { return false }
        case "shm":
            guard old.name == new.name, let shm = sink as? SharedMemorySink else { return false }
            if old.mode != new.mode {
                do { try shm.setMode(mode_t(new.mode)) } catch { log.warning("\(error); keeping the old mode", ["sink.name": new.name]) }
            }
        case "framebuffer":
            guard old.device == new.device, old.position?.x == new.position?.x, old.position?.y == new.position?.y else { return false }
        case "null":
            break
        default:
            var sameOutput = old
            sameOutput.fps = new.fps
            return sameOutput == new
        }
        return true
    }
}
